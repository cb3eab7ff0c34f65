import Drivers
import Foundation
import Store
import Transport
import TransportBlueZ
import TransportLibUSB
import TransportSCSI

#if canImport(Glibc)
    import Glibc
#endif

/// One thing `glucobridge doctor` checked.
package struct DoctorFinding: Sendable, Equatable {
    package enum Status: String, Sendable {
        /// Works.
        case ok
        /// Worth knowing; nothing to fix.
        case info
        /// Does not work; `fix` says what to do.
        case fail
    }

    package var status: Status
    /// What was checked: `store`, `usb`, `reader 22a3:0047`, `bluetooth`, `udev rules`, …
    package var subject: String
    package var message: String
    package var fix: String?

    package init(_ status: Status, _ subject: String, _ message: String, fix: String? = nil) {
        self.status = status
        self.subject = subject
        self.message = message
        self.fix = fix
    }
}

/// Checks that glucobridge can do its work on this machine, and says how to fix what it cannot:
/// the store, libusb and the USB bus, access to each connected reader, kernel drivers and
/// ModemManager, Bluetooth, and the installed udev rules and systemd units.
package struct Doctor {
    package var storePath: String
    package var environment: [String: String]
    /// The file system root the installed rules and units are looked for under (`/`, or a
    /// `--destdir` staging folder).
    package var installRoot: String
    /// The running binary, compared with the one the installed units start.
    package var binaryPath: String?

    package init(storePath: String, environment: [String: String], installRoot: String = "/", binaryPath: String? = nil) {
        self.storePath = storePath
        self.environment = environment
        self.installRoot = installRoot
        self.binaryPath = binaryPath
    }

    /// Runs every check, in the order they are printed.
    package func run() -> [DoctorFinding] {
        let installed = InstalledFiles(root: installRoot, environment: environment)
        return storeFindings() + usbFindings(installed: installed) + [freeStyleKeysFinding()] + [bluetoothFinding()]
            + installFindings(installed)
    }

    /// The findings as lines for a terminal, each failure followed by its fix, and a last line
    /// counting the problems.
    package static func render(_ findings: [DoctorFinding]) -> String {
        var lines: [String] = []
        for finding in findings {
            let status = finding.status == .fail ? "FAIL" : finding.status.rawValue
            lines.append(
                status.padding(toLength: 6, withPad: " ", startingAt: 0)
                    + finding.subject.padding(toLength: 18, withPad: " ", startingAt: 0) + finding.message)
            if let fix = finding.fix { lines.append(String(repeating: " ", count: 6) + "fix: " + fix) }
        }
        let failures = findings.filter { $0.status == .fail }.count
        lines.append(failures == 0 ? "no problems found" : "\(failures) problem\(failures == 1 ? "" : "s") found")
        return lines.joined(separator: "\n")
    }

    // MARK: - Store

    func storeFindings() -> [DoctorFinding] {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: storePath) else {
            guard let folder = Self.nearestExistingFolder(of: storePath) else {
                return [DoctorFinding(.fail, "store", "\(storePath) does not exist and no folder above it does either")]
            }
            guard Self.isWritable(folder) else {
                return [
                    DoctorFinding(
                        .fail, "store", "\(storePath) does not exist and cannot be created: \(folder) is not writable for \(Self.userName)",
                        fix: "choose a store in a folder you can write (--store PATH), or make \(folder) writable for \(Self.userName)")
                ]
            }
            return [DoctorFinding(.ok, "store", "\(storePath) does not exist yet; the first import creates it")]
        }
        var findings: [DoctorFinding] = []
        let folder = (storePath as NSString).deletingLastPathComponent
        let notWritable = [storePath, folder.isEmpty ? "." : folder].filter { !Self.isWritable($0) }
        if notWritable.isEmpty {
            findings.append(DoctorFinding(.ok, "store", "\(storePath) is writable"))
        } else {
            findings.append(
                DoctorFinding(
                    .fail, "store", "\(notWritable.joined(separator: " and ")) not writable for \(Self.userName)",
                    fix: "the store, and its folder (for the -wal and -shm files), must be writable: for the system store "
                        + "join group glucobridge (sudo usermod -aG glucobridge \(Self.userName), then log in again); "
                        + "otherwise fix the owner or mode with chown / chmod"))
        }
        do {
            switch try SharedStore.schemaStatus(at: storePath) {
            case .current(let latest):
                findings.append(DoctorFinding(.ok, "store schema", "current (\(latest))"))
                for note in try SharedStore.migrationNotes(at: storePath) {
                    findings.append(DoctorFinding(.ok, "store migration", "\(note.migration): \(note.note)"))
                }
            case .behind(let missing):
                findings.append(
                    DoctorFinding(
                        .fail, "store schema", "older than this glucobridge: \(missing.joined(separator: ", ")) not applied",
                        fix: "run any glucobridge command on it (e.g. glucobridge days --store \(storePath)); it is migrated on opening"))
            case .newer(let unknown):
                findings.append(
                    DoctorFinding(
                        .fail, "store schema", "written by a newer glucobridge (\(unknown.joined(separator: ", ")))",
                        fix: "install the glucobridge release that upgraded it"))
            }
        } catch {
            findings.append(DoctorFinding(.fail, "store schema", "\(error)", fix: "see the message above"))
        }
        return findings
    }

    // MARK: - USB

    func usbFindings(installed: InstalledFiles) -> [DoctorFinding] {
        let context: LibUSBContext
        do {
            context = try LibUSBContext()
        } catch {
            return [
                DoctorFinding(
                    .fail, "libusb", "\(error)",
                    fix: "install libusb 1.0 (apt install libusb-1.0-0) and make sure /dev and /sys are mounted")
            ]
        }
        var findings = [
            DoctorFinding(
                .ok, "libusb",
                "libusb \(LibUSBContext.libraryVersion) initialised"
                    + (LibUSBContext.supportsHotplug ? ", hotplug supported" : ", without hotplug (the daemon watches the spool folder only)"))
        ]
        let all: [USBDeviceDescription]
        do {
            all = try context.devices()
        } catch {
            return findings + [DoctorFinding(.fail, "usb bus", "\(error)", fix: "check that /dev/bus/usb exists and is readable")]
        }
        guard FileManager.default.fileExists(atPath: "/sys/bus/usb") else {
            return findings + [
                DoctorFinding(
                    .fail, "usb bus", "this kernel has no USB support (/sys/bus/usb does not exist): no reader can be plugged in here",
                    fix: "run glucobridge on a machine with USB, or give this VM a USB controller and pass the reader through; "
                        + "capture files can still be imported with glucobridge replay or the daemon's spool folder")
            ]
        }
        guard !all.isEmpty else {
            return findings + [
                DoctorFinding(
                    .fail, "usb bus", "the kernel has USB but libusb sees no device, not even a root hub",
                    fix: "make /dev/bus/usb available (in a container: bind-mount /dev/bus/usb and /run/udev)")
            ]
        }
        findings.append(DoctorFinding(.ok, "usb bus", "\(all.count) USB device\(all.count == 1 ? "" : "s") visible"))

        let readers = all.filter { DriverRegistry.usbDriver(vendorID: $0.vendorID, productID: $0.productID) != nil }
        if readers.isEmpty {
            findings.append(DoctorFinding(.info, "readers", "no supported reader is connected"))
        }
        let modemManager = Self.processes(named: "ModemManager")
        for reader in readers {
            findings += readerFindings(reader, installed: installed, modemManagerRunning: !modemManager.isEmpty)
        }
        return findings
    }

    /// Whether the FreeStyle Libre 2 / Libre 3 keys are there, and where they were found. Only
    /// those readers need them: missing keys are a failure when one is connected
    /// (`readerFindings`), worth knowing otherwise.
    func freeStyleKeysFinding() -> DoctorFinding {
        do {
            let keys = try FreeStyleKeys.locate(environment: environment)
            return DoctorFinding(.ok, "libre 2/3 keys", "found in \(keys.origin)")
        } catch .keysMissing {
            return DoctorFinding(
                .info, "libre 2/3 keys", "not found (only FreeStyle Libre 2 and Libre 3 readers need them): \(FreeStyleKeys.howToGet)")
        } catch {
            return DoctorFinding(.fail, "libre 2/3 keys", "\(error)", fix: FreeStyleKeys.howToGet)
        }
    }

    func readerFindings(_ reader: USBDeviceDescription, installed: InstalledFiles, modemManagerRunning: Bool) -> [DoctorFinding] {
        let subject = "reader \(USBID(vendor: reader.vendorID, product: reader.productID))"
        if let model = FreeStyleModel(vendorID: reader.vendorID, productID: reader.productID), model.isEncrypted,
            (try? FreeStyleKeys.locate(environment: environment)) == nil
        {
            return [
                DoctorFinding(
                    .fail, subject, "a \(model.rawValue) is connected and the keys its session needs are missing", fix: FreeStyleKeys.howToGet)
            ]
                + readerAccessFindings(reader, installed: installed, modemManagerRunning: modemManagerRunning)
        }
        return readerAccessFindings(reader, installed: installed, modemManagerRunning: modemManagerRunning)
    }

    func readerAccessFindings(_ reader: USBDeviceDescription, installed: InstalledFiles, modemManagerRunning: Bool) -> [DoctorFinding] {
        let location = USBDeviceLocation(bus: reader.bus, address: reader.address)
        let id = USBID(vendor: reader.vendorID, product: reader.productID)
        let subject = "reader \(id)"
        let node = location.devicePath
        var findings: [DoctorFinding] = []
        if Self.isAccessible(node) {
            findings.append(DoctorFinding(.ok, subject, "\(node) (\(location)) can be opened by \(Self.userName)"))
        } else {
            findings.append(
                DoctorFinding(
                    .fail, subject, "\(node) (\(location)) cannot be opened by \(Self.userName)",
                    fix: accessFix(node: node, id: id, installed: installed)))
        }
        let sysfs = Self.sysfsFolder(of: location)
        for (interface, driver) in sysfs.map(Self.boundDrivers) ?? [] {
            if driver == "usbfs" {
                let holders = Self.processes(holdingOpen: node)
                findings.append(
                    DoctorFinding(
                        .fail, subject,
                        "interface \(interface) is claimed by another program through libusb"
                            + (holders.isEmpty ? "" : " (\(holders.joined(separator: ", ")))"),
                        fix: "close that program (a vendor tool or another glucobridge import), then try again"))
            } else if driver == "usb-storage" {
                findings.append(contentsOf: diskFindings(location, id: id, subject: subject, installed: installed))
            } else {
                findings.append(
                    DoctorFinding(
                        .info, subject,
                        "interface \(interface) is bound to the kernel driver \(driver); glucobridge detaches it "
                            + "for an import and binds it again afterwards"))
            }
        }
        if modemManagerRunning, reader.vendorID == 0x22A3 {
            if let sysfs, Self.udevProperty("ID_MM_DEVICE_IGNORE", ofDeviceAt: sysfs) == "1" {
                findings.append(DoctorFinding(.ok, subject, "ModemManager is running and told to leave this receiver alone"))
            } else {
                findings.append(
                    DoctorFinding(
                        .fail, subject, "ModemManager is running and may probe the receiver's serial port as if it were a modem",
                        fix: "install the udev rules (they set ID_MM_DEVICE_IGNORE): sudo glucobridge install --system, then replug the receiver"))
            }
        }
        return findings
    }

    /// A USB disk meter (a OneTouch Verio) stays with usb-storage: its commands go to the SCSI node
    /// the kernel made for it, which this user must be able to open.
    func diskFindings(_ location: USBDeviceLocation, id: USBID, subject: String, installed: InstalledFiles) -> [DoctorFinding] {
        guard let disk = KernelDisk.find(bus: location.bus, address: location.address), let node = disk.node else {
            return [
                DoctorFinding(
                    .fail, subject, "usb-storage holds the meter but the kernel made no SCSI disk node for it",
                    fix: "load the SCSI disk modules (sudo modprobe sd_mod sg), then replug the meter")
            ]
        }
        var findings = [
            DoctorFinding(.info, subject, "usb-storage holds the meter; glucobridge leaves it bound and sends its commands to \(node)")
        ]
        if disk.genericNode == nil {
            findings.append(
                DoctorFinding(
                    .info, subject, "no sg node: commands go to the block node \(node) (sudo modprobe sg makes one)"))
        }
        if Self.isAccessible(node) {
            findings.append(DoctorFinding(.ok, subject, "\(node) can be opened by \(Self.userName)"))
        } else {
            findings.append(
                DoctorFinding(
                    .fail, subject, "\(node) cannot be opened by \(Self.userName)", fix: accessFix(node: node, id: id, installed: installed)))
        }
        return findings
    }

    /// Why a reader's node is closed to this user, as a fix.
    func accessFix(node: String, id: USBID, installed: InstalledFiles) -> String {
        guard let rules = installed.rules else {
            return "the glucobridge udev rules are not installed: sudo glucobridge install --system (or install udev/60-glucobridge.rules "
                + "into /etc/udev/rules.d), then replug the reader"
        }
        guard UdevRules.readers(in: rules.text)[id] != nil else {
            return "the installed rules (\(rules.path)) do not list \(id): install this release's rules with sudo glucobridge install --system"
        }
        var info = stat()
        if stat(node, &info) == 0, let group = getgrgid(info.st_gid).map({ String(cString: $0.pointee.gr_name) }),
            !Self.currentGroups.contains(info.st_gid)
        {
            return "join group \(group) (sudo usermod -aG \(group) \(Self.userName), then log out and back in), or use the desktop "
                + "session the reader was plugged into (the rules give its user access)"
        }
        return "udev has not applied the rules to this device yet: replug it, or run sudo udevadm trigger --action=change --subsystem-match=usb"
    }

    // MARK: - Bluetooth

    func bluetoothFinding() -> DoctorFinding {
        switch BluetoothProbe.check() {
        case .available(let adapters):
            return DoctorFinding(.ok, "bluetooth", "adapters: \(adapters.joined(separator: ", "))")
        case .unavailable(let reason):
            let fix: String
            if reason.contains("no Bluetooth support") {
                return DoctorFinding(
                    .fail, "bluetooth", "\(reason): Bluetooth bands and sensors cannot be read on this machine",
                    fix: "use a kernel built with Bluetooth (CONFIG_BT) and a Bluetooth adapter; USB readers and capture files do not need it")
            } else if reason.contains("permission") {
                fix =
                    "reading sensors by address needs no capability; to scan, "
                    + "sudo setcap cap_net_raw,cap_net_admin+ep \(binaryPath ?? "the glucobridge binary")"
            } else if reason.contains("no Bluetooth adapter") {
                fix = "plug in or switch on a Bluetooth adapter (rfkill unblock bluetooth)"
            } else {
                fix = "check that the Bluetooth service and adapter work (bluetoothctl show)"
            }
            return DoctorFinding(.fail, "bluetooth", reason, fix: fix)
        }
    }

    // MARK: - Installed files

    func installFindings(_ installed: InstalledFiles) -> [DoctorFinding] {
        let installHint = "sudo glucobridge install --system (or glucobridge install --user)"
        var findings: [DoctorFinding] = []
        if let rules = installed.rules {
            var finding = comparison(.udevRules, rules, subject: "udev rules")
            let drift = UdevRules.drift(in: rules.text)
            if finding.status != .ok, !drift.isEmpty { finding.message += "; against this release's drivers: " + drift.joined(separator: "; ") }
            findings.append(finding)
        } else {
            findings.append(
                DoctorFinding(
                    .fail, "udev rules", "not installed: readers need root to open and are not imported when plugged in", fix: installHint))
        }
        let units = installed.units
        if units.isEmpty {
            findings.append(DoctorFinding(.fail, "systemd units", "none installed: nothing imports in the background", fix: installHint))
        }
        for (file, found) in units {
            findings.append(comparison(file, found, subject: file == .importUnit ? "import unit" : "daemon unit"))
            if let binary = SystemFile.execBinary(of: found.text) {
                findings += binaryFindings(binary.replacingOccurrences(of: "%h", with: installed.home), unit: found.path)
            }
        }
        return findings
    }

    private func comparison(_ file: SystemFile, _ found: InstalledFiles.Found, subject: String) -> DoctorFinding {
        // Under /usr/lib (or /lib) a file is the distribution package's; /etc holds what
        // `glucobridge install --system` wrote.
        let packaged = found.path.hasPrefix("/usr/lib/") || found.path.hasPrefix("/lib/")
        let reinstall =
            file == .userDaemonUnit
            ? "glucobridge install --user" : packaged ? "sudo apt install --reinstall glucobridge" : "sudo glucobridge install --system"
        switch file.compare(installed: found.text) {
        case .same:
            let by = packaged ? ", from the Debian package" : ""
            return DoctorFinding(.ok, subject, "\(found.path) matches this glucobridge (\(GlucoBridgeVersion.current))\(by)")
        case .otherRelease(let version):
            return DoctorFinding(
                .fail, subject, "\(found.path) was installed by glucobridge \(version ?? "(unknown release)"), this is \(GlucoBridgeVersion.current)",
                fix: reinstall)
        case .modified:
            return DoctorFinding(.fail, subject, "\(found.path) differs from what this glucobridge installs (edited?)", fix: reinstall)
        }
    }

    /// Whether the binary a unit starts exists and is this release.
    private func binaryFindings(_ binary: String, unit: String) -> [DoctorFinding] {
        let path = installRoot == "/" ? binary : (installRoot as NSString).appendingPathComponent(binary)
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return [DoctorFinding(.fail, "binary", "\(binary), which \(unit) starts, is missing", fix: "install glucobridge again")]
        }
        if let binaryPath, InstallPlan.resolved(binaryPath) == InstallPlan.resolved(path) { return [] }
        guard let version = Self.version(ofBinary: path) else {
            return [DoctorFinding(.fail, "binary", "\(binary) does not answer --version", fix: "install glucobridge again")]
        }
        guard version == GlucoBridgeVersion.current else {
            return [
                DoctorFinding(
                    .fail, "binary", "\(binary) is glucobridge \(version), this is \(GlucoBridgeVersion.current)", fix: "install this release again")
            ]
        }
        return [DoctorFinding(.ok, "binary", "\(binary) is glucobridge \(version)")]
    }

    // MARK: - The system, read directly

    static var userName: String {
        getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
    }

    static var currentGroups: Set<gid_t> {
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let filled = getgroups(count, &groups)
        return Set(groups.prefix(Int(max(filled, 0)))).union([getegid()])
    }

    static func isWritable(_ path: String) -> Bool { faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 }

    static func isAccessible(_ node: String) -> Bool { faccessat(AT_FDCWD, node, R_OK | W_OK, AT_EACCESS) == 0 }

    static func nearestExistingFolder(of path: String) -> String? {
        var folder = (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        var isDirectory: ObjCBool = false
        while !(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue) {
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder || parent.isEmpty { return nil }
            folder = parent
        }
        return folder
    }

    /// `/sys/bus/usb/devices/1-1.4` for the device at `location`, found by its `busnum` and `devnum`.
    static func sysfsFolder(of location: USBDeviceLocation) -> String? {
        let root = "/sys/bus/usb/devices"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.map { "\(root)/\($0)" }.first { folder in
            (try? USBDeviceLocation(parsing: folder)) == location
        }
    }

    /// The kernel driver bound to each interface of the device in `folder`: `[("1.0", "cdc_acm")]`.
    static func boundDrivers(_ folder: String) -> [(String, String)] {
        let name = (folder as NSString).lastPathComponent
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter { $0.hasPrefix(name + ":") }.sorted().compactMap { interface in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(interface)/driver") else { return nil }
            return (String(interface.dropFirst(name.count + 1)), (target as NSString).lastPathComponent)
        }
    }

    /// A property udev recorded for the device in `folder` (from `/run/udev/data/c MAJOR:MINOR`).
    static func udevProperty(_ key: String, ofDeviceAt folder: String) -> String? {
        guard let dev = try? String(contentsOfFile: "\(folder)/dev", encoding: .utf8),
            let data = try? String(contentsOfFile: "/run/udev/data/c\(dev.trimmingCharacters(in: .whitespacesAndNewlines))", encoding: .utf8)
        else { return nil }
        return data.split(separator: "\n").first { $0.hasPrefix("E:\(key)=") }.map { String($0.dropFirst("E:\(key)=".count)) }
    }

    /// `1234 (ModemManager)` for each running process with this command name.
    static func processes(named name: String) -> [String] {
        processIDs().filter { commandName(of: $0) == name }.map { "\($0) (\(name))" }
    }

    /// `1234 (vendor-tool)` for each process (that this user may inspect) with `path` open.
    static func processes(holdingOpen path: String) -> [String] {
        processIDs().filter { pid in
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path }
        }.map { "\($0) (\(commandName(of: $0) ?? "?"))" }
    }

    private static func processIDs() -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int.init)
    }

    private static func commandName(of pid: Int) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What `binary --version` prints, or nil when it cannot be run.
    static func version(ofBinary binary: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The glucobridge rules and units found on this machine (under `root`).
struct InstalledFiles {
    struct Found {
        var path: String
        var text: String
    }

    var rules: Found?
    var units: [(SystemFile, Found)]
    var home: String

    init(root: String, environment: [String: String]) {
        func find(_ name: String, in folders: [String]) -> Found? {
            for folder in folders {
                let path = (folder as NSString).appendingPathComponent(name)
                let staged = root == "/" ? path : (root as NSString).appendingPathComponent(path)
                if let text = try? String(contentsOfFile: staged, encoding: .utf8) { return Found(path: path, text: text) }
            }
            return nil
        }
        let layout = try? InstallLayout(mode: .user, prefix: "/", environment: environment)
        home = layout?.home ?? NSHomeDirectory()
        rules = find(
            SystemFile.udevRules.installedName, in: ["/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d"])
        let systemFolders = ["/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"]
        var units: [(SystemFile, Found)] = []
        for file in [SystemFile.importUnit, .daemonUnit] {
            if let found = find(file.installedName, in: systemFolders) { units.append((file, found)) }
        }
        if let layout, let found = find(SystemFile.userDaemonUnit.installedName, in: [layout.unitFolder]) {
            units.append((.userDaemonUnit, found))
        }
        self.units = units
    }
}
