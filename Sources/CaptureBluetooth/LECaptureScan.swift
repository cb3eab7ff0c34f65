import Transport

extension BLEScanResults {
    /// The devices the advertising reports of a capture describe.
    package init(capture: LECapture) {
        self.init()
        for captured in capture.advertisingReports { add(captured.report, at: captured.timestamp.date) }
    }
}
