/// The columns of `glucose` and who writes each, in one place: an import's fast path
/// (``GlucoseImportWriter`` and ``ImportRowTable``) is built from these lists, and `SchemaTests`
/// fails, naming the column, when the schema has a column that is in none of them.
enum GlucoseImportColumns {
    /// Values of one reading, as `glucobridge_import_rows` gives them (the table function's
    /// columns, in this order), written to the column of the same name.
    enum Reading: Int32, CaseIterable {
        case time, mgdl, unit, tag, flag, kind, trend, noise, deviceRecordKey, deviceTime, deviceDisplayTime, note

        /// The column's name in `glucose` and in the table function.
        var name: String {
            switch self {
            case .time: "time"
            case .mgdl: "mgdl"
            case .unit: "unit"
            case .tag: "tag"
            case .flag: "flag"
            case .kind: "kind"
            case .trend: "trend"
            case .noise: "noise"
            case .deviceRecordKey: "device_record_key"
            case .deviceTime: "device_time"
            case .deviceDisplayTime: "device_display_time"
            case .note: "note"
            }
        }
    }

    /// Columns whose value is the same for a run of readings, bound by the INSERT: the Day, the
    /// device's source and the import run, in the order of their parameters ?3, ?4, ?5.
    static let perRun = ["day_id", "source_id", "import_run_id"]

    /// Columns an import leaves as they are, and why.
    static let notWritten: [String: String] = [
        "id": "SQLite's row id, given on insert",
        "uid": "the sync identity of a reading entered in the app; a device's reading is keyed by its source and record key",
    ]
}
