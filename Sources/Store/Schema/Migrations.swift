import Foundation
import GRDB

/// The store's schema, as named, versioned migrations. A migration that has shipped is never
/// edited: change the schema by registering a new one after the last, and put what it leaves
/// in ``currentSchema`` (what a new store is made of).
package enum Migrations {
    /// One migration: its identifier, its SQL, and the work on existing rows that SQL alone
    /// cannot do (run after the SQL when an existing store is migrated; a new store has no rows).
    struct Step: Sendable {
        var identifier: String
        var sql: String
        var rows: (@Sendable (Database) throws -> Void)?
    }

    /// Every migration, in order.
    static let steps: [Step] = [
        Step(identifier: "v1-app-model-and-ingest", sql: v1),
        Step(identifier: "v2-app-api-indexes", sql: v2),
        Step(identifier: "v3-activity-minutes-and-profile", sql: v3),
        Step(identifier: "v4-glucose-note", sql: v4),
        Step(identifier: "v5-glucose-fast-checks", sql: v5),
        Step(identifier: "v7-display-unit", sql: v7),
        Step(identifier: "v8-sync-change-log", sql: v8),
        Step(identifier: "v9-tags-from-exact-values", sql: v9, rows: retagFromExactValues),
        Step(identifier: "v10-activity-minute-parts", sql: v10),
        Step(identifier: "v11-device-minute-values", sql: v11),
        Step(identifier: "v12-exercise-distance-energy", sql: v12),
        Step(identifier: "v13-ble-activity-source", sql: v13, rows: mergeBluetoothActivitySources),
    ]

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in steps {
            migrator.registerMigration(step.identifier) { db in
                try db.execute(sql: step.sql)
                try step.rows?(db)
            }
        }
        return migrator
    }

    /// Makes the whole schema in a database that has none, in one transaction: the tables,
    /// indexes and triggers every migration leaves (``currentSchema``, each made once instead of
    /// made and then altered or rebuilt), the one row a migration adds to an empty store (the
    /// store's sync uid), with foreign keys off as GRDB's migrator runs migrations, and GRDB's
    /// table of applied migrations holding them all. A new store is then one commit instead of
    /// one per migration, each followed by GRDB's schema and foreign key checks. `SchemaTests`
    /// holds this and the migrator to the same schema. Runs outside a transaction (foreign keys
    /// can only be switched there); on a failure nothing is made and the error names the last
    /// migration.
    static func createSchema(in db: Database) throws {
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        try db.inTransaction(.immediate) {
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            do {
                // A new store has no rows: the steps' row work (`Step.rows`, the rows v8 copies
                // into the change log) has nothing to do.
                try db.execute(sql: currentSchema)
                try db.execute(sql: newStoreRows)
            } catch let error as DatabaseError {
                throw SchemaStepError(identifier: steps.last!.identifier, underlying: error)
            }
            let applied = try db.cachedStatement(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)")
            for step in steps {
                try applied.execute(arguments: [step.identifier])
            }
            guard try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") == nil else {
                throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: "the new schema fails its foreign key check")
            }
            return .commit
        }
    }

    /// A migration's SQL failed while the schema was made in one transaction.
    struct SchemaStepError: Error {
        var identifier: String
        var underlying: DatabaseError
    }

    /// Instants: `YYYY-MM-DD HH:MM:SS.SSS` UTC (see `StoreTime`). Dates: `YYYY-MM-DD`.
    private static let instant = "GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'"
    private static let date = "GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'"

    private static let v1 = """
        CREATE TABLE store_config (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            time_zone TEXT NOT NULL CHECK (time_zone <> ''),
            very_low_mgdl INTEGER NOT NULL,
            low_mgdl INTEGER NOT NULL,
            high_mgdl INTEGER NOT NULL,
            very_high_mgdl INTEGER NOT NULL,
            CHECK (0 < very_low_mgdl AND very_low_mgdl <= low_mgdl AND low_mgdl < high_mgdl
                   AND high_mgdl <= very_high_mgdl)
        );

        CREATE TABLE favourite (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL CHECK (name <> '')
        );
        CREATE INDEX favourite_by_name ON favourite(name COLLATE NOCASE);

        CREATE TABLE day (
            id INTEGER PRIMARY KEY,
            date TEXT NOT NULL UNIQUE CHECK (date \(date)),
            favourite_id INTEGER REFERENCES favourite(id) ON DELETE SET NULL
        );
        CREATE INDEX day_by_favourite ON day(favourite_id);

        CREATE TABLE source (
            id INTEGER PRIMARY KEY,
            family TEXT NOT NULL CHECK (family <> ''),
            serial TEXT NOT NULL CHECK (serial <> ''),
            model TEXT,
            UNIQUE (family, serial)
        );

        CREATE TABLE import_run (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES source(id),
            started_at TEXT NOT NULL CHECK (started_at \(instant)),
            finished_at TEXT NOT NULL CHECK (finished_at \(instant)),
            mode TEXT NOT NULL,
            origin TEXT,
            records_read INTEGER NOT NULL CHECK (records_read >= 0),
            records_added INTEGER NOT NULL CHECK (records_added >= 0),
            records_already_stored INTEGER NOT NULL CHECK (records_already_stored >= 0),
            records_skipped INTEGER NOT NULL CHECK (records_skipped >= 0),
            host_time TEXT CHECK (host_time \(instant)),
            device_time TEXT CHECK (device_time \(instant)),
            clock_offset_seconds REAL,
            time_method TEXT NOT NULL
                CHECK (time_method IN ('host-anchored', 'device-clock-as-utc', 'device-local-time')),
            events_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(events_json)),
            notes_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(notes_json))
        );
        CREATE INDEX import_run_by_source ON import_run(source_id);

        CREATE TABLE source_cursor (
            source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
            stream TEXT NOT NULL CHECK (stream <> ''),
            last_record_index INTEGER NOT NULL,
            import_run_id INTEGER REFERENCES import_run(id),
            PRIMARY KEY (source_id, stream)
        ) WITHOUT ROWID;
        CREATE INDEX source_cursor_by_import_run ON source_cursor(import_run_id);

        CREATE TABLE glucose (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time \(instant)),
            mgdl REAL NOT NULL CHECK (mgdl > 0 AND mgdl < 1000),
            unit TEXT NOT NULL DEFAULT 'mg/dL' CHECK (unit IN ('mg/dL', 'mmol/L')),
            tag TEXT NOT NULL CHECK (tag IN ('hypo-l2', 'hypo-l1', 'in-range', 'hyper-l1', 'hyper-l2')),
            flag TEXT CHECK (flag IN ('LO', 'HI')),
            kind TEXT NOT NULL DEFAULT 'sensor' CHECK (kind IN ('sensor', 'fingerstick')),
            trend TEXT CHECK (trend IN ('DoubleUp', 'SingleUp', 'FortyFiveUp', 'Flat', 'FortyFiveDown',
                                        'SingleDown', 'DoubleDown', 'NotComputable', 'RateOutOfRange')),
            noise INTEGER,
            source_id INTEGER REFERENCES source(id),
            device_record_key TEXT CHECK (device_record_key <> ''),
            device_time INTEGER,
            device_display_time TEXT,
            import_run_id INTEGER REFERENCES import_run(id),
            CHECK ((source_id IS NULL) = (device_record_key IS NULL)),
            UNIQUE (source_id, device_record_key)
        );
        CREATE INDEX glucose_by_time ON glucose(time);
        CREATE INDEX glucose_by_day ON glucose(day_id, time);

        CREATE TABLE insulin (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time \(instant)),
            units REAL NOT NULL CHECK (units > 0 AND units < 1000)
        );
        CREATE INDEX insulin_by_day ON insulin(day_id, time);

        CREATE TABLE meal (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time \(instant)),
            name TEXT NOT NULL DEFAULT '',
            carbs_g REAL NOT NULL DEFAULT 0 CHECK (carbs_g >= 0),
            protein_g REAL NOT NULL DEFAULT 0 CHECK (protein_g >= 0),
            fat_g REAL NOT NULL DEFAULT 0 CHECK (fat_g >= 0),
            favourite_id INTEGER REFERENCES favourite(id) ON DELETE SET NULL
        );
        CREATE INDEX meal_by_day ON meal(day_id, time);
        CREATE INDEX meal_by_favourite ON meal(favourite_id);

        CREATE TABLE exercise (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time \(instant)),
            name TEXT NOT NULL CHECK (name <> ''),
            duration_seconds REAL NOT NULL CHECK (duration_seconds >= 0),
            intensity TEXT NOT NULL CHECK (intensity IN ('light', 'moderate', 'vigorous')),
            favourite_id INTEGER REFERENCES favourite(id) ON DELETE SET NULL,
            source_id INTEGER REFERENCES source(id),
            device_record_key TEXT CHECK (device_record_key <> ''),
            device_time INTEGER,
            device_display_time TEXT,
            import_run_id INTEGER REFERENCES import_run(id),
            CHECK ((source_id IS NULL) = (device_record_key IS NULL)),
            UNIQUE (source_id, device_record_key)
        );
        CREATE INDEX exercise_by_day ON exercise(day_id, time);
        CREATE INDEX exercise_by_favourite ON exercise(favourite_id);
        CREATE INDEX exercise_by_import_run ON exercise(import_run_id);

        CREATE TABLE illness (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            start_time TEXT NOT NULL CHECK (start_time \(instant)),
            end_time TEXT CHECK (end_time \(instant) AND end_time >= start_time)
        );
        CREATE INDEX illness_by_day ON illness(day_id, start_time);

        CREATE TABLE stress (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            start_time TEXT NOT NULL CHECK (start_time \(instant)),
            end_time TEXT CHECK (end_time \(instant) AND end_time >= start_time)
        );
        CREATE INDEX stress_by_day ON stress(day_id, start_time);
        """

    /// Indexes for the app's API (no table changes), and the rule "at most one open episode of
    /// each kind" enforced for every writer.
    private static let v2 = """
        -- Logs between two instants ("meals by time"); glucose has glucose_by_time.
        CREATE INDEX insulin_by_time ON insulin(time);
        CREATE INDEX meal_by_time ON meal(time);
        CREATE INDEX exercise_by_time ON exercise(time);
        -- Episodes by start, and the episodes overlapping a Day (those starting before its end).
        CREATE INDEX illness_by_time ON illness(start_time);
        CREATE INDEX stress_by_time ON stress(start_time);

        -- At most one open episode of each kind. An older store may hold several (v1 did not
        -- forbid it): each but the latest is ended when the next one started.
        UPDATE illness SET end_time = (
            SELECT o.start_time FROM illness o
            WHERE o.end_time IS NULL AND (o.start_time, o.id) > (illness.start_time, illness.id)
            ORDER BY o.start_time, o.id LIMIT 1)
        WHERE end_time IS NULL AND EXISTS (
            SELECT 1 FROM illness o
            WHERE o.end_time IS NULL AND (o.start_time, o.id) > (illness.start_time, illness.id));
        UPDATE stress SET end_time = (
            SELECT o.start_time FROM stress o
            WHERE o.end_time IS NULL AND (o.start_time, o.id) > (stress.start_time, stress.id)
            ORDER BY o.start_time, o.id LIMIT 1)
        WHERE end_time IS NULL AND EXISTS (
            SELECT 1 FROM stress o
            WHERE o.end_time IS NULL AND (o.start_time, o.id) > (stress.start_time, stress.id));
        CREATE UNIQUE INDEX illness_one_open ON illness((end_time IS NULL)) WHERE end_time IS NULL;
        CREATE UNIQUE INDEX stress_one_open ON stress((end_time IS NULL)) WHERE end_time IS NULL;

        -- Favourite Days by date, favourite meals and exercise by name (partial: favourites only).
        CREATE INDEX day_favourites_by_date ON day(date) WHERE favourite_id IS NOT NULL;
        CREATE INDEX meal_favourites_by_name ON meal(name COLLATE NOCASE, time) WHERE favourite_id IS NOT NULL;
        CREATE INDEX exercise_favourites_by_name ON exercise(name COLLATE NOCASE, time) WHERE favourite_id IS NOT NULL;

        -- Day summaries: count, low/average/high and the count of each tag from the index alone.
        CREATE INDEX glucose_summary_by_day ON glucose(day_id, tag, mgdl);
        """

    /// Per-minute activity from bands and sport sensors (heart rate for the app's plots, and what
    /// exercise sessions were detected from), and the user profile exercise detection reads.
    private static let v3 = """
        CREATE TABLE activity_minute (
            source_id INTEGER NOT NULL REFERENCES source(id),
            minute TEXT NOT NULL CHECK (minute \(instant) AND substr(minute, 18) = '00.000'),
            heart_rate_bpm REAL CHECK (heart_rate_bpm > 0 AND heart_rate_bpm < 300),
            step_cadence_spm REAL CHECK (step_cadence_spm >= 0 AND step_cadence_spm < 1000),
            crank_cadence_rpm REAL CHECK (crank_cadence_rpm >= 0 AND crank_cadence_rpm < 1000),
            speed_mps REAL CHECK (speed_mps >= 0 AND speed_mps < 100),
            distance_m REAL CHECK (distance_m >= 0),
            energy_kj REAL CHECK (energy_kj >= 0),
            gait TEXT CHECK (gait IN ('walking', 'running')),
            sensors TEXT NOT NULL CHECK (json_valid(sensors) AND json_array_length(sensors) > 0),
            sample_count INTEGER NOT NULL CHECK (sample_count > 0),
            import_run_id INTEGER REFERENCES import_run(id),
            PRIMARY KEY (source_id, minute)
        ) WITHOUT ROWID;
        CREATE INDEX activity_minute_by_time ON activity_minute(minute);

        CREATE TABLE user_profile (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            age_years INTEGER CHECK (age_years BETWEEN 1 AND 120),
            max_heart_rate_bpm INTEGER CHECK (max_heart_rate_bpm BETWEEN 60 AND 250),
            resting_heart_rate_bpm INTEGER CHECK (resting_heart_rate_bpm BETWEEN 20 AND 150),
            CHECK (resting_heart_rate_bpm < coalesce(max_heart_rate_bpm, 208 - 0.7 * age_years))
        );
        """

    /// A note on a glucose reading: what the device recorded with it (a meter's meal, activity
    /// or feeling markers). NULL when there is none; never empty.
    private static let v4 = """
        ALTER TABLE glucose ADD COLUMN note TEXT CHECK (note IS NULL OR note <> '');
        """

    /// `glucose` rebuilt with every `IN (…)` list CHECK written as `=` comparisons joined by `OR`:
    /// the same rule (for NULL too: `NULL = 'x' OR …` is NULL, which a CHECK lets through, as
    /// `NULL IN (…)` is), but SQLite 3.40 builds a temporary B-tree for an `IN` list on every row
    /// it checks, and none for the comparisons. Columns, defaults, foreign keys, the other CHECKs,
    /// the `(source_id, device_record_key)` key, ids and rows are kept; the indexes are made again.
    private static let v5 = """
        CREATE TABLE glucose_v5 (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time \(instant)),
            mgdl REAL NOT NULL CHECK (mgdl > 0 AND mgdl < 1000),
            unit TEXT NOT NULL DEFAULT 'mg/dL' CHECK (unit = 'mg/dL' OR unit = 'mmol/L'),
            tag TEXT NOT NULL CHECK (tag = 'hypo-l2' OR tag = 'hypo-l1' OR tag = 'in-range' OR tag = 'hyper-l1'
                                     OR tag = 'hyper-l2'),
            flag TEXT CHECK (flag = 'LO' OR flag = 'HI'),
            kind TEXT NOT NULL DEFAULT 'sensor' CHECK (kind = 'sensor' OR kind = 'fingerstick'),
            trend TEXT CHECK (trend = 'DoubleUp' OR trend = 'SingleUp' OR trend = 'FortyFiveUp' OR trend = 'Flat'
                              OR trend = 'FortyFiveDown' OR trend = 'SingleDown' OR trend = 'DoubleDown'
                              OR trend = 'NotComputable' OR trend = 'RateOutOfRange'),
            noise INTEGER,
            source_id INTEGER REFERENCES source(id),
            device_record_key TEXT CHECK (device_record_key <> ''),
            device_time INTEGER,
            device_display_time TEXT,
            import_run_id INTEGER REFERENCES import_run(id),
            note TEXT CHECK (note IS NULL OR note <> ''),
            CHECK ((source_id IS NULL) = (device_record_key IS NULL)),
            UNIQUE (source_id, device_record_key)
        );
        INSERT INTO glucose_v5 (id, day_id, time, mgdl, unit, tag, flag, kind, trend, noise, source_id,
                                device_record_key, device_time, device_display_time, import_run_id, note)
        SELECT id, day_id, time, mgdl, unit, tag, flag, kind, trend, noise, source_id,
               device_record_key, device_time, device_display_time, import_run_id, note
        FROM glucose;
        DROP TABLE glucose;
        ALTER TABLE glucose_v5 RENAME TO glucose;
        CREATE INDEX glucose_by_time ON glucose(time);
        CREATE INDEX glucose_by_day ON glucose(day_id, time);
        CREATE INDEX glucose_summary_by_day ON glucose(day_id, tag, mgdl);
        """

    /// The unit views show glucose in (the store keeps mg/dL whatever it is).
    private static let v7 = """
        ALTER TABLE store_config ADD COLUMN display_unit TEXT NOT NULL DEFAULT 'mg/dL'
            CHECK (display_unit IN ('mg/dL', 'mmol/L'));
        """

    /// What a migration did to the rows already stored, for `doctor` to show
    /// (``SharedStore/migrationNotes(at:)``): one row per migration that changed any.
    private static let v9 = """
        CREATE TABLE migration_note (
            identifier TEXT PRIMARY KEY,
            applied_at TEXT NOT NULL CHECK (applied_at \(instant)),
            changed INTEGER NOT NULL CHECK (changed >= 0),
            note TEXT NOT NULL CHECK (note <> '')
        );
        """

    /// The part of an activity minute each import saw: the sums and counts of its samples and its
    /// sensors' running totals at both ends, keyed by the instants of its first and last sample,
    /// so that a minute split between two sessions is stored from both parts
    /// (`ActivityMinuteParts`). Minutes stored before keep no parts, and stay as they are.
    private static let v10 = """
        CREATE TABLE activity_minute_part (
            source_id INTEGER NOT NULL,
            minute TEXT NOT NULL,
            first_sample TEXT NOT NULL CHECK (first_sample \(instant) AND substr(first_sample, 1, 16) = substr(minute, 1, 16)),
            last_sample TEXT NOT NULL CHECK (last_sample \(instant) AND substr(last_sample, 1, 16) = substr(minute, 1, 16)
                                             AND last_sample >= first_sample),
            heart_rate_sum REAL NOT NULL CHECK (heart_rate_sum >= 0),
            heart_rate_count INTEGER NOT NULL CHECK (heart_rate_count >= 0),
            step_cadence_sum REAL NOT NULL CHECK (step_cadence_sum >= 0),
            step_cadence_count INTEGER NOT NULL CHECK (step_cadence_count >= 0),
            crank_cadence_sum REAL NOT NULL CHECK (crank_cadence_sum >= 0),
            crank_cadence_count INTEGER NOT NULL CHECK (crank_cadence_count >= 0),
            speed_sum REAL NOT NULL CHECK (speed_sum >= 0),
            speed_count INTEGER NOT NULL CHECK (speed_count >= 0),
            distance_m REAL CHECK (distance_m >= 0),
            energy_kj REAL CHECK (energy_kj >= 0),
            walking_count INTEGER NOT NULL CHECK (walking_count >= 0),
            running_count INTEGER NOT NULL CHECK (running_count >= 0),
            sensors TEXT NOT NULL CHECK (json_valid(sensors) AND json_array_length(sensors) > 0),
            running_totals TEXT NOT NULL CHECK (json_valid(running_totals)),
            sample_count INTEGER NOT NULL CHECK (sample_count > 0),
            import_run_id INTEGER NOT NULL REFERENCES import_run(id),
            PRIMARY KEY (source_id, minute, first_sample, last_sample),
            FOREIGN KEY (source_id, minute) REFERENCES activity_minute(source_id, minute)
        ) WITHOUT ROWID;
        CREATE INDEX activity_minute_part_by_import_run ON activity_minute_part(import_run_id);
        """

    /// A device's own per-minute activity kind and intensity, as it sent them on its own scale
    /// (docs/store-schema.md says each family's), on the minute and on each import's part of it.
    /// Minutes stored before have none.
    private static let v11 = """
        ALTER TABLE activity_minute ADD COLUMN device_activity_kind INTEGER CHECK (device_activity_kind BETWEEN 0 AND 255);
        ALTER TABLE activity_minute ADD COLUMN device_intensity INTEGER CHECK (device_intensity BETWEEN 0 AND 255);
        ALTER TABLE activity_minute_part ADD COLUMN device_activity_kind INTEGER CHECK (device_activity_kind BETWEEN 0 AND 255);
        ALTER TABLE activity_minute_part ADD COLUMN device_intensity INTEGER CHECK (device_intensity BETWEEN 0 AND 255);
        """

    /// The distance and energy of an exercise session, when the device logged them (a watch's
    /// FIT session, a band's workout) or the app entered them; sessions stored before have none.
    /// An app log's edit of either is a change for sync, as an edit of its other columns is.
    private static let v12 = """
        ALTER TABLE exercise ADD COLUMN distance_m REAL CHECK (distance_m >= 0);
        ALTER TABLE exercise ADD COLUMN energy_kj REAL CHECK (energy_kj >= 0);
        DROP TRIGGER exercise_sync_update;
        CREATE TRIGGER exercise_sync_update AFTER UPDATE OF day_id, time, name, duration_seconds, intensity, favourite_id, source_id, distance_m, energy_kj ON exercise WHEN NEW.source_id IS NULL AND NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('exercise', NEW.uid);
        END;
        """

    /// Tags were decided on a whole mg/dL (69.6 was in range); they are now decided on the value
    /// as the device sent it, in its own unit (``GlucoseThresholds/tag(mgdl:)``). Every stored
    /// reading whose tag changes is re-tagged with the store's thresholds, and the count kept.
    static func retagFromExactValues(_ db: Database) throws {
        let thresholds = try SharedStore.thresholds(db)
        let changed = try SharedStore.retag(db, with: thresholds)
        try db.execute(
            sql: "INSERT INTO migration_note (identifier, applied_at, changed, note) VALUES (?, ?, ?, ?)",
            arguments: [
                "v9-tags-from-exact-values", StoreTime.string(Date()), changed,
                "\(changed) stored glucose reading\(changed == 1 ? "" : "s") re-tagged: tags are now decided on the value as "
                    + "the device sent it (69.6 mg/dL is below 70), not on a whole mg/dL",
            ])
    }
}
