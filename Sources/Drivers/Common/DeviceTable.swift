import Foundation

/// README's tables of what glucobridge reads, rendered from `DriverRegistry` so that the page
/// cannot drift from the drivers (a test compares them).
package enum DeviceTable {
    /// The line before each table in README.md.
    package static func begin(_ table: String) -> String { "<!-- \(table): generated from DriverRegistry, do not edit -->" }
    /// The line after each table in README.md.
    package static func end(_ table: String) -> String { "<!-- end of \(table) -->" }

    /// The names README marks its tables with, and their text.
    package static var tables: [(name: String, markdown: String)] {
        [("supported devices", supportedDevices), ("bluetooth services", bluetoothServices)]
    }

    /// One row per USB driver (the products it reads), one per product refused or unsupported,
    /// one for the Bluetooth services, one for FIT files and one for Garmin's USB disks.
    package static var supportedDevices: String {
        var rows = ["| device | USB id | status |", "|---|---|---|"]
        for driver in DriverRegistry.usb {
            let read = driver.products.filter { $0.refusal == nil }
            if !read.isEmpty { rows.append(row(names(read), ids(read), driver.summary)) }
            for refused in driver.products where refused.refusal != nil {
                rows.append(row(refused.name, ids([refused]), "refused: \(refused.refusal!)"))
            }
        }
        for product in DriverRegistry.unsupportedUSB {
            rows.append(row(product.name, ids([product]), "not supported: \(product.refusal ?? "no driver")"))
        }
        let services = DriverRegistry.ble.map { $0.service.name }.joined(separator: ", ")
        rows.append(
            row(
                "Bluetooth LE sensors with the \(services) services", "",
                "standard GATT services: see [Bluetooth LE sensors](#bluetooth-le-sensors)"))
        rows.append(row(FITActivityFile.devices, "", FITActivityFile.summary))
        rows.append(row(GarminVolume.devices, "091e (mass storage)", GarminVolume.summary))
        rows.append(row(GarminVolume.mtpDevices, "091e (MTP)", GarminVolume.mtpSummary))
        return rows.joined(separator: "\n")
    }

    /// One row per Bluetooth LE driver: its service, family and what it stores.
    package static var bluetoothServices: String {
        let rows =
            ["| service | family | what is stored |", "|---|---|---|"]
            + DriverRegistry.ble.map { row($0.service.description, "`\($0.family)`", $0.summary) }
        return rows.joined(separator: "\n")
    }

    /// The text between `begin(name)` and `end(name)` in `document`, nil when the markers are not
    /// both there.
    package static func section(_ name: String, in document: String) -> String? {
        guard let start = document.range(of: begin(name) + "\n"),
            let stop = document.range(of: "\n" + end(name), range: start.upperBound..<document.endIndex)
        else { return nil }
        return String(document[start.upperBound..<stop.lowerBound])
    }

    private static func row(_ cells: String...) -> String {
        "| " + cells.joined(separator: " | ") + " |"
    }

    /// The distinct names, in order.
    private static func names(_ products: [USBProduct]) -> String {
        var seen: [String] = []
        for product in products where !seen.contains(product.name) { seen.append(product.name) }
        return seen.joined(separator: ", ")
    }

    /// `1a79:6002, 7410, 7350`: the vendor once when the products share it.
    private static func ids(_ products: [USBProduct]) -> String {
        var parts: [String] = []
        var vendor: UInt16?
        for product in products {
            let productText = String(format: "%04x", product.productID)
            parts.append(product.vendorID == vendor ? productText : String(format: "%04x:", product.vendorID) + productText)
            vendor = product.vendorID
        }
        return parts.joined(separator: ", ")
    }
}
