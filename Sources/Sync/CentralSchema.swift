import Foundation
import Store

/// The central PostgreSQL schema: one database for many patients, every row keyed by
/// `patient_id`. Its versions are numbered migrations recorded in `sync_schema_version` and
/// applied by the first sync that finds them missing (under a transaction-level advisory lock,
/// so that many first syncs at once apply them once).
///
/// - Device data (`glucose_reading`, `activity_session`, `activity_minute`) is keyed by
///   (patient, source, device record key or minute); sources by (patient, family, serial), with
///   a server id the readings point to; import runs by (patient, store, local id).
/// - Logs entered in the app are keyed by (patient, uid); Days by (patient, date).
/// - The large tables are hash-partitioned by `patient_id` (PostgreSQL documentation, "Table
///   Partitioning"), which is also the distribution column a Citus cluster would use.
enum CentralSchema {
    /// Partitions of each large table.
    static let partitions = 16

    /// The tables hash-partitioned by `patient_id`.
    static let partitionedTables = ["glucose_reading", "activity_session", "activity_minute", "glucose_log"]

    static let versionTable = """
        CREATE TABLE IF NOT EXISTS sync_schema_version (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    /// Each migration is a list of statements (one statement per query in the extended protocol).
    static let migrations: [[String]] = [v1, v2, v3, v4, v5, v6]

    private static func partitioned(_ table: String) -> [String] {
        (0..<partitions).map { remainder in
            "CREATE TABLE \(table)_p\(remainder) PARTITION OF \(table) FOR VALUES WITH (MODULUS \(partitions), REMAINDER \(remainder))"
        }
    }

    /// Each reading's tag as the store gave it (on the value as the device sent it, with the
    /// patient's thresholds), so that the server counts time in ranges as the store does. Rows
    /// synced before have none (NULL).
    private static let v2: [String] = [
        "ALTER TABLE glucose_reading ADD COLUMN tag text",
        "ALTER TABLE glucose_log ADD COLUMN tag text",
    ]

    /// The thresholds (very low, low, high, very high mg/dL) the server's tags of each store's
    /// rows follow, or are being brought to, and while that re-tag is under way, the local
    /// glucose id it has reached. A cursor made before has none (NULL): its next sync checks
    /// every tag once. A fifth element, written since, is the rule the tags follow
    /// (`StoreSync.tagRule`).
    private static let v3: [String] = [
        "ALTER TABLE sync_cursor ADD COLUMN tag_thresholds integer[]",
        "ALTER TABLE sync_cursor ADD COLUMN retag_glucose_id bigint",
    ]

    /// A device's own per-minute activity kind and intensity, as the store keeps them (its
    /// `device_activity_kind`, `device_intensity`). Minutes synced before have none (NULL).
    private static let v4: [String] = [
        "ALTER TABLE activity_minute ADD COLUMN device_activity_kind integer",
        "ALTER TABLE activity_minute ADD COLUMN device_intensity integer",
    ]

    /// The distance and energy of an exercise session, device-logged or app-entered, as the
    /// store keeps them (`distance_m`, `energy_kj`). Sessions synced before have none (NULL).
    private static let v5: [String] = [
        "ALTER TABLE activity_session ADD COLUMN distance_m double precision",
        "ALTER TABLE activity_session ADD COLUMN energy_kj double precision",
        "ALTER TABLE exercise_log ADD COLUMN distance_m double precision",
        "ALTER TABLE exercise_log ADD COLUMN energy_kj double precision",
    ]

    /// A Bluetooth device's activity source is the bus's, `ble` (the store's migration
    /// `v13-ble-activity-source`): each patient's sources stored before under activity services'
    /// families, alone or joined with `+`, become the device's one `ble` source. Of a minute or
    /// a session two sources of one device held, the minute of more samples and the favourite
    /// session are kept; the store's migration sends the minutes it merged again, which replace
    /// what this kept.
    private static let v6: [String] = [
        """
        CREATE TEMPORARY TABLE v6_activity_source ON COMMIT DROP AS
        SELECT id AS old_id, patient_id, serial, NULL::bigint AS new_id FROM source
        WHERE family <> 'ble' AND family <> ''
            AND string_to_array(family, '+') <@ ARRAY['ble-hrs', 'ble-csc', 'ble-rsc', 'ble-ftms', 'huami', 'infinitime']
        """,
        """
        INSERT INTO source (patient_id, family, serial, model)
        SELECT DISTINCT ON (s.patient_id, s.serial) s.patient_id, 'ble', s.serial, s.model
        FROM source s JOIN v6_activity_source m ON m.old_id = s.id
        ORDER BY s.patient_id, s.serial, s.model IS NULL, s.id
        ON CONFLICT (patient_id, family, serial) DO NOTHING
        """,
        """
        UPDATE v6_activity_source m SET new_id = s.id FROM source s
        WHERE s.patient_id = m.patient_id AND s.family = 'ble' AND s.serial = m.serial
        """,
        "UPDATE import_run r SET source_id = m.new_id FROM v6_activity_source m WHERE r.source_id = m.old_id",
        """
        INSERT INTO activity_minute (
            patient_id, source_id, minute, heart_rate_bpm, step_cadence_spm, crank_cadence_rpm, speed_mps, distance_m,
            energy_kj, gait, sensors, sample_count, device_activity_kind, device_intensity)
        SELECT DISTINCT ON (a.patient_id, m.new_id, a.minute)
            a.patient_id, m.new_id, a.minute, a.heart_rate_bpm, a.step_cadence_spm, a.crank_cadence_rpm, a.speed_mps,
            a.distance_m, a.energy_kj, a.gait, a.sensors, a.sample_count, a.device_activity_kind, a.device_intensity
        FROM activity_minute a JOIN v6_activity_source m ON a.patient_id = m.patient_id AND a.source_id = m.old_id
        ORDER BY a.patient_id, m.new_id, a.minute, a.sample_count DESC, m.old_id
        ON CONFLICT (patient_id, source_id, minute) DO NOTHING
        """,
        """
        DELETE FROM activity_minute a USING v6_activity_source m
        WHERE a.patient_id = m.patient_id AND a.source_id = m.old_id
        """,
        """
        INSERT INTO activity_session (
            patient_id, source_id, device_record_key, day, time, name, duration_seconds, intensity, favourite,
            device_time, device_display_time, distance_m, energy_kj)
        SELECT DISTINCT ON (a.patient_id, m.new_id, a.device_record_key)
            a.patient_id, m.new_id, a.device_record_key, a.day, a.time, a.name, a.duration_seconds, a.intensity,
            a.favourite, a.device_time, a.device_display_time, a.distance_m, a.energy_kj
        FROM activity_session a JOIN v6_activity_source m ON a.patient_id = m.patient_id AND a.source_id = m.old_id
        ORDER BY a.patient_id, m.new_id, a.device_record_key, a.favourite DESC, m.old_id
        ON CONFLICT (patient_id, source_id, device_record_key) DO NOTHING
        """,
        """
        DELETE FROM activity_session a USING v6_activity_source m
        WHERE a.patient_id = m.patient_id AND a.source_id = m.old_id
        """,
        "DELETE FROM source s USING v6_activity_source m WHERE s.id = m.old_id",
    ]

    private static let v1: [String] =
        [
            """
            CREATE TABLE patient (
                patient_id text PRIMARY KEY CHECK (patient_id <> ''),
                time_zone text NOT NULL,
                very_low_mgdl integer NOT NULL,
                low_mgdl integer NOT NULL,
                high_mgdl integer NOT NULL,
                very_high_mgdl integer NOT NULL
            )
            """,
            """
            CREATE TABLE sync_cursor (
                patient_id text NOT NULL REFERENCES patient(patient_id),
                store_uid text NOT NULL,
                source_id bigint NOT NULL DEFAULT 0,
                import_run_id bigint NOT NULL DEFAULT 0,
                glucose_reading_id bigint NOT NULL DEFAULT 0,
                activity_session_id bigint NOT NULL DEFAULT 0,
                change_seq bigint NOT NULL DEFAULT 0,
                last_batch_at timestamptz,
                PRIMARY KEY (patient_id, store_uid)
            )
            """,
            """
            CREATE TABLE source (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                patient_id text NOT NULL REFERENCES patient(patient_id),
                family text NOT NULL,
                serial text NOT NULL,
                model text,
                UNIQUE (patient_id, family, serial)
            )
            """,
            """
            CREATE TABLE import_run (
                patient_id text NOT NULL,
                store_uid text NOT NULL,
                local_id bigint NOT NULL,
                source_id bigint NOT NULL REFERENCES source(id),
                started_at timestamptz NOT NULL,
                finished_at timestamptz NOT NULL,
                mode text NOT NULL,
                origin text,
                records_read integer NOT NULL,
                records_added integer NOT NULL,
                records_already_stored integer NOT NULL,
                records_skipped integer NOT NULL,
                host_time timestamptz,
                device_time timestamptz,
                clock_offset_seconds double precision,
                time_method text NOT NULL,
                events jsonb NOT NULL,
                notes jsonb NOT NULL,
                PRIMARY KEY (patient_id, store_uid, local_id)
            )
            """,
            """
            CREATE TABLE glucose_reading (
                patient_id text NOT NULL,
                source_id bigint NOT NULL,
                device_record_key text NOT NULL,
                day date NOT NULL,
                time timestamptz NOT NULL,
                mgdl double precision NOT NULL,
                unit text NOT NULL,
                flag text,
                kind text NOT NULL,
                trend text,
                noise integer,
                device_time bigint,
                device_display_time text,
                note text,
                PRIMARY KEY (patient_id, source_id, device_record_key)
            ) PARTITION BY HASH (patient_id)
            """,
            """
            CREATE TABLE activity_session (
                patient_id text NOT NULL,
                source_id bigint NOT NULL,
                device_record_key text NOT NULL,
                day date NOT NULL,
                time timestamptz NOT NULL,
                name text NOT NULL,
                duration_seconds double precision NOT NULL,
                intensity text NOT NULL,
                favourite boolean NOT NULL,
                device_time bigint,
                device_display_time text,
                PRIMARY KEY (patient_id, source_id, device_record_key)
            ) PARTITION BY HASH (patient_id)
            """,
            """
            CREATE TABLE activity_minute (
                patient_id text NOT NULL,
                source_id bigint NOT NULL,
                minute timestamptz NOT NULL,
                heart_rate_bpm double precision,
                step_cadence_spm double precision,
                crank_cadence_rpm double precision,
                speed_mps double precision,
                distance_m double precision,
                energy_kj double precision,
                gait text,
                sensors jsonb NOT NULL,
                sample_count integer NOT NULL,
                PRIMARY KEY (patient_id, source_id, minute)
            ) PARTITION BY HASH (patient_id)
            """,
            """
            CREATE TABLE glucose_log (
                patient_id text NOT NULL, uid text NOT NULL, day date NOT NULL, time timestamptz NOT NULL,
                mgdl double precision NOT NULL, unit text NOT NULL, flag text, kind text NOT NULL, trend text,
                noise integer, note text,
                PRIMARY KEY (patient_id, uid)
            ) PARTITION BY HASH (patient_id)
            """,
            """
            CREATE TABLE insulin_log (
                patient_id text NOT NULL, uid text NOT NULL, day date NOT NULL, time timestamptz NOT NULL,
                units double precision NOT NULL,
                PRIMARY KEY (patient_id, uid)
            )
            """,
            """
            CREATE TABLE meal_log (
                patient_id text NOT NULL, uid text NOT NULL, day date NOT NULL, time timestamptz NOT NULL,
                name text NOT NULL, carbs_g double precision NOT NULL, protein_g double precision NOT NULL,
                fat_g double precision NOT NULL, favourite boolean NOT NULL,
                PRIMARY KEY (patient_id, uid)
            )
            """,
            """
            CREATE TABLE exercise_log (
                patient_id text NOT NULL, uid text NOT NULL, day date NOT NULL, time timestamptz NOT NULL,
                name text NOT NULL, duration_seconds double precision NOT NULL, intensity text NOT NULL,
                favourite boolean NOT NULL,
                PRIMARY KEY (patient_id, uid)
            )
            """,
            """
            CREATE TABLE illness_episode (
                patient_id text NOT NULL, uid text NOT NULL, day date NOT NULL, start_time timestamptz NOT NULL,
                end_time timestamptz,
                PRIMARY KEY (patient_id, uid)
            )
            """,
            """
            CREATE TABLE stress_episode (
                patient_id text NOT NULL, uid text NOT NULL, day date NOT NULL, start_time timestamptz NOT NULL,
                end_time timestamptz,
                PRIMARY KEY (patient_id, uid)
            )
            """,
            """
            CREATE TABLE day (
                patient_id text NOT NULL, date date NOT NULL, favourite boolean NOT NULL,
                PRIMARY KEY (patient_id, date)
            )
            """,
        ] + partitionedTables.flatMap(partitioned)
}

/// How one kind of local row lands in its central table: its rows are sent with
/// `COPY … FROM STDIN` (text format), keyed by patient. Rows read from an id cursor (device data)
/// are copied straight into the table; rows that may already be on the server (the app's edits,
/// or device data another store of the patient sent first) are copied into a temporary staging
/// table and upserted from there (``merge``).
struct CentralTable: Sendable {
    /// A column of the central table: its name, the local column it is read from and its type.
    struct Column: Sendable {
        var name: String
        var field: String
        var type: String
        /// A local integer sent as a boolean (non-zero is true).
        var isFlag: Bool { type == "boolean" }

        init(_ name: String, _ type: String, field: String? = nil) {
            self.name = name
            self.field = field ?? name
            self.type = type
        }
    }

    var name: String
    var columns: [Column]
    /// The conflict key after `patient_id`.
    var key: [String]
    /// Rows carry `family` and `serial`, sent as the central `source_id`.
    var bySource = false
    /// Rows carry the store's uid.
    var byStore = false
    /// A row already on the server is replaced (logs, whose values change, and activity minutes,
    /// which a later session completes) rather than kept (other device data, whose first stored
    /// version wins as in the local store).
    var replaces = false
    /// Rows carry only the key and the store's `tag` of rows already on the server (``retag``).
    var retags = false

    /// The columns a COPY writes, in the order of each line.
    var copyColumns: [String] {
        ["patient_id"] + (byStore ? ["store_uid"] : []) + (bySource ? ["source_id"] : []) + columns.map(\.name)
    }

    /// The session's staging table: the same columns, emptied at every commit.
    var stage: String { "glucobridge_\(retags ? "retag" : "stage")_\(name)" }

    var createStage: String {
        """
        CREATE TEMPORARY TABLE \(stage) ON COMMIT DELETE ROWS AS
        SELECT \(copyColumns.joined(separator: ", ")) FROM \(name) WITH NO DATA
        """
    }

    /// `INSERT … SELECT` of the staged rows, by key, returning how many rows were written.
    var merge: String {
        let names = copyColumns.joined(separator: ", ")
        let conflict = (["patient_id"] + key).joined(separator: ", ")
        let action: String
        if replaces {
            let updated = columns.map(\.name).filter { !key.contains($0) }
            let set = updated.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            let old = updated.map { "\(name).\($0)" }.joined(separator: ", ")
            let new = updated.map { "EXCLUDED.\($0)" }.joined(separator: ", ")
            action = "DO UPDATE SET \(set) WHERE (\(old)) IS DISTINCT FROM (\(new))"
        } else {
            action = "DO NOTHING"
        }
        return """
            WITH written AS (
                INSERT INTO \(name) (\(names)) SELECT \(names) FROM \(stage)
                ON CONFLICT (\(conflict)) \(action)
                RETURNING 1)
            SELECT count(*) FROM written
            """
    }

    /// Sets the `tag` of the patient's (`$1`) rows to the staged one where they differ, by key;
    /// returns how many changed.
    var retag: String {
        let match = key.map { "t.\($0) = s.\($0)" }.joined(separator: " AND ")
        return """
            WITH changed AS (
                UPDATE \(name) t SET tag = s.tag FROM \(stage) s
                WHERE t.patient_id = $1 AND \(match) AND t.tag IS DISTINCT FROM s.tag
                RETURNING 1)
            SELECT count(*) FROM changed
            """
    }

    /// Deletes the rows whose keys (one key column) are in `$2`; returns how many.
    var delete: String {
        let keyType = columns.first { $0.name == key[0] }?.type ?? "text"
        return """
            WITH gone AS (DELETE FROM \(name) WHERE patient_id = $1 AND \(key[0]) = ANY($2::text[]::\(keyType)[]) RETURNING 1)
            SELECT count(*) FROM gone
            """
    }

    typealias C = Column
    static let instant = "timestamptz"

    static let sources = CentralTable(
        name: "source", columns: [C("family", "text"), C("serial", "text"), C("model", "text")],
        key: ["family", "serial"], replaces: true)

    static let importRuns = CentralTable(
        name: "import_run",
        columns: [
            C("local_id", "bigint", field: "id"), C("started_at", instant), C("finished_at", instant), C("mode", "text"),
            C("origin", "text"), C("records_read", "integer"), C("records_added", "integer"),
            C("records_already_stored", "integer"), C("records_skipped", "integer"), C("host_time", instant),
            C("device_time", instant), C("clock_offset_seconds", "double precision"), C("time_method", "text"),
            C("events", "jsonb", field: "events_json"), C("notes", "jsonb", field: "notes_json"),
        ],
        key: ["store_uid", "local_id"], bySource: true, byStore: true)

    static let glucoseReadings = CentralTable(
        name: "glucose_reading",
        columns: [
            C("device_record_key", "text"), C("day", "date"), C("time", instant), C("mgdl", "double precision"),
            C("unit", "text"), C("tag", "text"), C("flag", "text"), C("kind", "text"), C("trend", "text"), C("noise", "integer"),
            C("device_time", "bigint"), C("device_display_time", "text"), C("note", "text"),
        ],
        key: ["source_id", "device_record_key"], bySource: true)

    /// The store's tags of device readings already sent.
    static let readingTags = CentralTable(
        name: "glucose_reading", columns: [C("device_record_key", "text"), C("tag", "text")],
        key: ["source_id", "device_record_key"], bySource: true, retags: true)

    /// The store's tags of glucose logs already sent.
    static let logTags = CentralTable(
        name: "glucose_log", columns: [C("uid", "text"), C("tag", "text")], key: ["uid"], retags: true)

    static let activitySessions = CentralTable(
        name: "activity_session",
        columns: [
            C("device_record_key", "text"), C("day", "date"), C("time", instant), C("name", "text"),
            C("duration_seconds", "double precision"), C("intensity", "text"),
            C("favourite", "boolean"), C("device_time", "bigint"),
            C("device_display_time", "text"), C("distance_m", "double precision"), C("energy_kj", "double precision"),
        ],
        key: ["source_id", "device_record_key"], bySource: true, replaces: true)

    static let activityMinutes = CentralTable(
        name: "activity_minute",
        columns: [
            C("minute", instant), C("heart_rate_bpm", "double precision"), C("step_cadence_spm", "double precision"),
            C("crank_cadence_rpm", "double precision"), C("speed_mps", "double precision"),
            C("distance_m", "double precision"), C("energy_kj", "double precision"), C("gait", "text"),
            C("sensors", "jsonb"), C("sample_count", "integer"), C("device_activity_kind", "integer"),
            C("device_intensity", "integer"),
        ],
        key: ["source_id", "minute"], bySource: true, replaces: true)

    /// The central table of each entity of the local change log.
    static func table(for entity: SyncEntity) -> CentralTable {
        let uid = C("uid", "text", field: "key")
        let day = C("day", "date")
        let favourite = C("favourite", "boolean")
        switch entity {
        case .glucose:
            return CentralTable(
                name: "glucose_log",
                columns: [
                    uid, day, C("time", instant), C("mgdl", "double precision"), C("unit", "text"), C("tag", "text"), C("flag", "text"),
                    C("kind", "text"), C("trend", "text"), C("noise", "integer"), C("note", "text"),
                ],
                key: ["uid"], replaces: true)
        case .insulin:
            return CentralTable(
                name: "insulin_log", columns: [uid, day, C("time", instant), C("units", "double precision")],
                key: ["uid"], replaces: true)
        case .meal:
            return CentralTable(
                name: "meal_log",
                columns: [
                    uid, day, C("time", instant), C("name", "text"), C("carbs_g", "double precision"),
                    C("protein_g", "double precision"), C("fat_g", "double precision"), favourite,
                ],
                key: ["uid"], replaces: true)
        case .exercise:
            return CentralTable(
                name: "exercise_log",
                columns: [
                    uid, day, C("time", instant), C("name", "text"), C("duration_seconds", "double precision"),
                    C("intensity", "text"), favourite, C("distance_m", "double precision"), C("energy_kj", "double precision"),
                ],
                key: ["uid"], replaces: true)
        case .illness, .stress:
            return CentralTable(
                name: "\(entity.rawValue)_episode",
                columns: [uid, day, C("start_time", instant), C("end_time", instant)],
                key: ["uid"], replaces: true)
        case .day:
            return CentralTable(
                name: "day", columns: [C("date", "date", field: "key"), favourite], key: ["date"], replaces: true)
        case .session:
            return activitySessions
        }
    }
}
