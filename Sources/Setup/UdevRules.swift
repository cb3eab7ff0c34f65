import Drivers
import Foundation

/// A vendor and product id pair, `22a3:0047`.
package struct USBID: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var vendor: UInt16
    package var product: UInt16

    package init(vendor: UInt16, product: UInt16) {
        self.vendor = vendor
        self.product = product
    }

    package var description: String { String(format: "%04x:%04x", vendor, product) }

    package static func < (a: USBID, b: USBID) -> Bool { (a.vendor, a.product) < (b.vendor, b.product) }
}

/// Reads what a glucobridge rules file grants, so tests and `doctor` can hold it against the drivers.
package enum UdevRules {
    /// The devices the rules mark as readers (`ENV{GLUCOBRIDGE_DRIVER}="…"` on a line matching
    /// `ATTR{idVendor}` and `ATTR{idProduct}`, alternatives separated by `|`), with the driver
    /// name each line gives.
    package static func readers(in text: String) -> [USBID: String] {
        var found: [USBID: String] = [:]
        for line in ruleLines(text) {
            guard let driver = value(of: "ENV{GLUCOBRIDGE_DRIVER}=", in: line),
                let vendorText = value(of: "ATTR{idVendor}==", in: line), let vendor = UInt16(vendorText, radix: 16),
                let productText = value(of: "ATTR{idProduct}==", in: line)
            else { continue }
            for alternative in productText.split(separator: "|") {
                if let product = UInt16(alternative, radix: 16) { found[USBID(vendor: vendor, product: product)] = driver }
            }
        }
        return found
    }

    /// The readers the rules should mark: every product of the registry's USB drivers, with its
    /// driver's family.
    package static var expectedReaders: [USBID: String] {
        var expected: [USBID: String] = [:]
        for driver in DriverRegistry.usb {
            for product in driver.products { expected[USBID(vendor: product.vendorID, product: product.productID)] = driver.family.rawValue }
        }
        return expected
    }

    /// How the readers in `text` differ from the driver registry's, one sentence each: a
    /// supported reader missing, a reader no driver supports, or one given to another driver.
    /// Empty when they agree.
    package static func drift(in text: String) -> [String] {
        let listed = readers(in: text)
        let expected = expectedReaders
        var problems: [String] = []
        for (id, family) in expected.sorted(by: { $0.key < $1.key }) {
            if let given = listed[id] {
                if given != family { problems.append("\(id) is given to driver \(given), but the \(family) driver reads it") }
            } else {
                problems.append("\(id) (\(family)) is missing")
            }
        }
        for (id, given) in listed.sorted(by: { $0.key < $1.key }) where expected[id] == nil {
            problems.append("\(id) (\(given)) is listed, but no driver supports it")
        }
        return problems
    }

    /// Every `MODE` the rules assign (`MODE="0660"`, `MODE:="0666"`), as written.
    package static func modes(in text: String) -> [String] {
        ruleLines(text).flatMap { line in
            ["MODE=", "MODE:="].compactMap { value(of: $0, in: line) }
        }
    }

    /// Whether a `MODE` value lets users outside the owner and group read or write the device.
    package static func grantsOthers(mode: String) -> Bool {
        guard let bits = Int(mode, radix: 8) else { return true }
        return bits & 0o007 != 0
    }

    /// The lines that are rules: not blank, not comments.
    static func ruleLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { line in
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }
    }

    /// The quoted value after `key` (e.g. `ATTR{idVendor}==`) on a rule line.
    static func value(of key: String, in line: Substring) -> String? {
        var searchStart = line.startIndex
        while let range = line.range(of: key, range: searchStart..<line.endIndex) {
            // `MODE=` must not match inside `MODE==` or another key ending in MODE.
            let before = range.lowerBound == line.startIndex ? " " : line[line.index(before: range.lowerBound)]
            let rest = line[range.upperBound...]
            if (before == " " || before == ",") && rest.hasPrefix("\"") {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else { return nil }
                return String(body[..<close])
            }
            searchStart = range.upperBound
        }
        return nil
    }
}
