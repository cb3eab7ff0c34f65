extension Migrations {
    /// Every table, index and trigger of a store with all of ``steps`` applied, as SQLite keeps
    /// their SQL (`sqlite_schema`), tables first: what ``createSchema(in:)`` runs for a new
    /// store instead of each migration's SQL (which rebuilds `glucose` and alters tables that
    /// were just made). `SchemaTests` holds it to the migrator's schema: when a migration is
    /// added, that test fails and prints the statements to put here.
    static let currentSchema = """
        CREATE TABLE store_config (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            time_zone TEXT NOT NULL CHECK (time_zone <> ''),
            very_low_mgdl INTEGER NOT NULL,
            low_mgdl INTEGER NOT NULL,
            high_mgdl INTEGER NOT NULL,
            very_high_mgdl INTEGER NOT NULL, display_unit TEXT NOT NULL DEFAULT 'mg/dL'
            CHECK (display_unit IN ('mg/dL', 'mmol/L')),
            CHECK (0 < very_low_mgdl AND very_low_mgdl <= low_mgdl AND low_mgdl < high_mgdl
                   AND high_mgdl <= very_high_mgdl)
        );
        CREATE TABLE favourite (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL CHECK (name <> '')
        );
        CREATE TABLE day (
            id INTEGER PRIMARY KEY,
            date TEXT NOT NULL UNIQUE CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
            favourite_id INTEGER REFERENCES favourite(id) ON DELETE SET NULL
        );
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
            started_at TEXT NOT NULL CHECK (started_at GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            finished_at TEXT NOT NULL CHECK (finished_at GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            mode TEXT NOT NULL,
            origin TEXT,
            records_read INTEGER NOT NULL CHECK (records_read >= 0),
            records_added INTEGER NOT NULL CHECK (records_added >= 0),
            records_already_stored INTEGER NOT NULL CHECK (records_already_stored >= 0),
            records_skipped INTEGER NOT NULL CHECK (records_skipped >= 0),
            host_time TEXT CHECK (host_time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            device_time TEXT CHECK (device_time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            clock_offset_seconds REAL,
            time_method TEXT NOT NULL
                CHECK (time_method IN ('host-anchored', 'device-clock-as-utc', 'device-local-time')),
            events_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(events_json)),
            notes_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(notes_json))
        );
        CREATE TABLE source_cursor (
            source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
            stream TEXT NOT NULL CHECK (stream <> ''),
            last_record_index INTEGER NOT NULL,
            import_run_id INTEGER REFERENCES import_run(id),
            PRIMARY KEY (source_id, stream)
        ) WITHOUT ROWID;
        CREATE TABLE insulin (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            units REAL NOT NULL CHECK (units > 0 AND units < 1000)
        , uid TEXT CHECK (uid <> ''));
        CREATE TABLE meal (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            name TEXT NOT NULL DEFAULT '',
            carbs_g REAL NOT NULL DEFAULT 0 CHECK (carbs_g >= 0),
            protein_g REAL NOT NULL DEFAULT 0 CHECK (protein_g >= 0),
            fat_g REAL NOT NULL DEFAULT 0 CHECK (fat_g >= 0),
            favourite_id INTEGER REFERENCES favourite(id) ON DELETE SET NULL
        , uid TEXT CHECK (uid <> ''));
        CREATE TABLE exercise (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            name TEXT NOT NULL CHECK (name <> ''),
            duration_seconds REAL NOT NULL CHECK (duration_seconds >= 0),
            intensity TEXT NOT NULL CHECK (intensity IN ('light', 'moderate', 'vigorous')),
            favourite_id INTEGER REFERENCES favourite(id) ON DELETE SET NULL,
            source_id INTEGER REFERENCES source(id),
            device_record_key TEXT CHECK (device_record_key <> ''),
            device_time INTEGER,
            device_display_time TEXT,
            import_run_id INTEGER REFERENCES import_run(id), uid TEXT CHECK (uid <> ''), distance_m REAL CHECK (distance_m >= 0), energy_kj REAL CHECK (energy_kj >= 0),
            CHECK ((source_id IS NULL) = (device_record_key IS NULL)),
            UNIQUE (source_id, device_record_key)
        );
        CREATE TABLE illness (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            start_time TEXT NOT NULL CHECK (start_time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            end_time TEXT CHECK (end_time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]' AND end_time >= start_time)
        , uid TEXT CHECK (uid <> ''));
        CREATE TABLE stress (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            start_time TEXT NOT NULL CHECK (start_time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            end_time TEXT CHECK (end_time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]' AND end_time >= start_time)
        , uid TEXT CHECK (uid <> ''));
        CREATE TABLE activity_minute (
            source_id INTEGER NOT NULL REFERENCES source(id),
            minute TEXT NOT NULL CHECK (minute GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]' AND substr(minute, 18) = '00.000'),
            heart_rate_bpm REAL CHECK (heart_rate_bpm > 0 AND heart_rate_bpm < 300),
            step_cadence_spm REAL CHECK (step_cadence_spm >= 0 AND step_cadence_spm < 1000),
            crank_cadence_rpm REAL CHECK (crank_cadence_rpm >= 0 AND crank_cadence_rpm < 1000),
            speed_mps REAL CHECK (speed_mps >= 0 AND speed_mps < 100),
            distance_m REAL CHECK (distance_m >= 0),
            energy_kj REAL CHECK (energy_kj >= 0),
            gait TEXT CHECK (gait IN ('walking', 'running')),
            sensors TEXT NOT NULL CHECK (json_valid(sensors) AND json_array_length(sensors) > 0),
            sample_count INTEGER NOT NULL CHECK (sample_count > 0),
            import_run_id INTEGER REFERENCES import_run(id), device_activity_kind INTEGER CHECK (device_activity_kind BETWEEN 0 AND 255), device_intensity INTEGER CHECK (device_intensity BETWEEN 0 AND 255),
            PRIMARY KEY (source_id, minute)
        ) WITHOUT ROWID;
        CREATE TABLE user_profile (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            age_years INTEGER CHECK (age_years BETWEEN 1 AND 120),
            max_heart_rate_bpm INTEGER CHECK (max_heart_rate_bpm BETWEEN 60 AND 250),
            resting_heart_rate_bpm INTEGER CHECK (resting_heart_rate_bpm BETWEEN 20 AND 150),
            CHECK (resting_heart_rate_bpm < coalesce(max_heart_rate_bpm, 208 - 0.7 * age_years))
        );
        CREATE TABLE "glucose" (
            id INTEGER PRIMARY KEY,
            day_id INTEGER NOT NULL REFERENCES day(id),
            time TEXT NOT NULL CHECK (time GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
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
            note TEXT CHECK (note IS NULL OR note <> ''), uid TEXT CHECK (uid <> ''),
            CHECK ((source_id IS NULL) = (device_record_key IS NULL)),
            UNIQUE (source_id, device_record_key)
        );
        CREATE TABLE sync_store (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            uid TEXT NOT NULL CHECK (uid <> '')
        );
        CREATE TABLE sync_change (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            -- Comparisons joined by OR, not an IN list: SQLite 3.40 builds a temporary B-tree for
            -- an IN list each time it checks a row (see v5).
            entity TEXT NOT NULL CHECK (entity = 'glucose' OR entity = 'insulin' OR entity = 'meal'
                                        OR entity = 'exercise' OR entity = 'illness' OR entity = 'stress'
                                        OR entity = 'day' OR entity = 'session'),
            key TEXT NOT NULL CHECK (key <> '')
        );
        CREATE TABLE migration_note (
            identifier TEXT PRIMARY KEY,
            applied_at TEXT NOT NULL CHECK (applied_at GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'),
            changed INTEGER NOT NULL CHECK (changed >= 0),
            note TEXT NOT NULL CHECK (note <> '')
        );
        CREATE TABLE activity_minute_part (
            source_id INTEGER NOT NULL,
            minute TEXT NOT NULL,
            first_sample TEXT NOT NULL CHECK (first_sample GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]' AND substr(first_sample, 1, 16) = substr(minute, 1, 16)),
            last_sample TEXT NOT NULL CHECK (last_sample GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]' AND substr(last_sample, 1, 16) = substr(minute, 1, 16)
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
            import_run_id INTEGER NOT NULL REFERENCES import_run(id), device_activity_kind INTEGER CHECK (device_activity_kind BETWEEN 0 AND 255), device_intensity INTEGER CHECK (device_intensity BETWEEN 0 AND 255),
            PRIMARY KEY (source_id, minute, first_sample, last_sample),
            FOREIGN KEY (source_id, minute) REFERENCES activity_minute(source_id, minute)
        ) WITHOUT ROWID;
        CREATE TABLE source_service (
            source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
            service TEXT NOT NULL CHECK (service <> ''),
            PRIMARY KEY (source_id, service)
        ) WITHOUT ROWID;
        CREATE INDEX favourite_by_name ON favourite(name COLLATE NOCASE);
        CREATE INDEX day_by_favourite ON day(favourite_id);
        CREATE INDEX import_run_by_source ON import_run(source_id);
        CREATE INDEX source_cursor_by_import_run ON source_cursor(import_run_id);
        CREATE INDEX insulin_by_day ON insulin(day_id, time);
        CREATE INDEX meal_by_day ON meal(day_id, time);
        CREATE INDEX meal_by_favourite ON meal(favourite_id);
        CREATE INDEX exercise_by_day ON exercise(day_id, time);
        CREATE INDEX exercise_by_favourite ON exercise(favourite_id);
        CREATE INDEX exercise_by_import_run ON exercise(import_run_id);
        CREATE INDEX illness_by_day ON illness(day_id, start_time);
        CREATE INDEX stress_by_day ON stress(day_id, start_time);
        CREATE INDEX insulin_by_time ON insulin(time);
        CREATE INDEX meal_by_time ON meal(time);
        CREATE INDEX exercise_by_time ON exercise(time);
        CREATE INDEX illness_by_time ON illness(start_time);
        CREATE INDEX stress_by_time ON stress(start_time);
        CREATE UNIQUE INDEX illness_one_open ON illness((end_time IS NULL)) WHERE end_time IS NULL;
        CREATE UNIQUE INDEX stress_one_open ON stress((end_time IS NULL)) WHERE end_time IS NULL;
        CREATE INDEX day_favourites_by_date ON day(date) WHERE favourite_id IS NOT NULL;
        CREATE INDEX meal_favourites_by_name ON meal(name COLLATE NOCASE, time) WHERE favourite_id IS NOT NULL;
        CREATE INDEX exercise_favourites_by_name ON exercise(name COLLATE NOCASE, time) WHERE favourite_id IS NOT NULL;
        CREATE INDEX activity_minute_by_time ON activity_minute(minute);
        CREATE INDEX glucose_by_time ON glucose(time);
        CREATE INDEX glucose_by_day ON glucose(day_id, time);
        CREATE INDEX glucose_summary_by_day ON glucose(day_id, tag, mgdl);
        CREATE INDEX activity_minute_by_import_run ON activity_minute(import_run_id);
        CREATE UNIQUE INDEX glucose_by_uid ON glucose(uid) WHERE uid IS NOT NULL;
        CREATE UNIQUE INDEX insulin_by_uid ON insulin(uid) WHERE uid IS NOT NULL;
        CREATE UNIQUE INDEX meal_by_uid ON meal(uid) WHERE uid IS NOT NULL;
        CREATE UNIQUE INDEX exercise_by_uid ON exercise(uid) WHERE uid IS NOT NULL;
        CREATE UNIQUE INDEX illness_by_uid ON illness(uid) WHERE uid IS NOT NULL;
        CREATE UNIQUE INDEX stress_by_uid ON stress(uid) WHERE uid IS NOT NULL;
        CREATE INDEX activity_minute_part_by_import_run ON activity_minute_part(import_run_id);
        CREATE TRIGGER day_sync_insert AFTER INSERT ON day BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('day', NEW.date);
        END;
        CREATE TRIGGER day_sync_update AFTER UPDATE OF date, favourite_id ON day BEGIN
            INSERT INTO sync_change (entity, key) SELECT 'day', OLD.date WHERE OLD.date <> NEW.date;
            INSERT INTO sync_change (entity, key) VALUES ('day', NEW.date);
        END;
        CREATE TRIGGER day_sync_delete AFTER DELETE ON day BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('day', OLD.date);
        END;
        CREATE TRIGGER exercise_session_sync_update AFTER UPDATE OF favourite_id ON exercise
        WHEN NEW.source_id IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('session', CAST(NEW.id AS TEXT));
        END;
        CREATE TRIGGER glucose_sync_insert AFTER INSERT ON glucose WHEN NEW.source_id IS NULL BEGIN
            UPDATE glucose SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6))) WHERE id = NEW.id AND uid IS NULL;
            INSERT INTO sync_change (entity, key) SELECT 'glucose', uid FROM glucose WHERE id = NEW.id;
        END;
        CREATE TRIGGER glucose_sync_update AFTER UPDATE OF day_id, time, mgdl, unit, flag, kind, trend, noise, note, source_id ON glucose WHEN NEW.source_id IS NULL AND NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('glucose', NEW.uid);
        END;
        CREATE TRIGGER glucose_sync_delete AFTER DELETE ON glucose WHEN OLD.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('glucose', OLD.uid);
        END;
        CREATE TRIGGER glucose_uid_kept BEFORE UPDATE OF uid ON glucose
        WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
            SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
        END;
        CREATE TRIGGER insulin_sync_insert AFTER INSERT ON insulin  BEGIN
            UPDATE insulin SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6))) WHERE id = NEW.id AND uid IS NULL;
            INSERT INTO sync_change (entity, key) SELECT 'insulin', uid FROM insulin WHERE id = NEW.id;
        END;
        CREATE TRIGGER insulin_sync_update AFTER UPDATE OF day_id, time, units ON insulin WHEN NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('insulin', NEW.uid);
        END;
        CREATE TRIGGER insulin_sync_delete AFTER DELETE ON insulin WHEN OLD.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('insulin', OLD.uid);
        END;
        CREATE TRIGGER insulin_uid_kept BEFORE UPDATE OF uid ON insulin
        WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
            SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
        END;
        CREATE TRIGGER meal_sync_insert AFTER INSERT ON meal  BEGIN
            UPDATE meal SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6))) WHERE id = NEW.id AND uid IS NULL;
            INSERT INTO sync_change (entity, key) SELECT 'meal', uid FROM meal WHERE id = NEW.id;
        END;
        CREATE TRIGGER meal_sync_update AFTER UPDATE OF day_id, time, name, carbs_g, protein_g, fat_g, favourite_id ON meal WHEN NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('meal', NEW.uid);
        END;
        CREATE TRIGGER meal_sync_delete AFTER DELETE ON meal WHEN OLD.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('meal', OLD.uid);
        END;
        CREATE TRIGGER meal_uid_kept BEFORE UPDATE OF uid ON meal
        WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
            SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
        END;
        CREATE TRIGGER exercise_sync_insert AFTER INSERT ON exercise WHEN NEW.source_id IS NULL BEGIN
            UPDATE exercise SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6))) WHERE id = NEW.id AND uid IS NULL;
            INSERT INTO sync_change (entity, key) SELECT 'exercise', uid FROM exercise WHERE id = NEW.id;
        END;
        CREATE TRIGGER exercise_sync_update AFTER UPDATE OF day_id, time, name, duration_seconds, intensity, favourite_id, source_id, distance_m, energy_kj ON exercise WHEN NEW.source_id IS NULL AND NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('exercise', NEW.uid);
        END;
        CREATE TRIGGER exercise_sync_delete AFTER DELETE ON exercise WHEN OLD.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('exercise', OLD.uid);
        END;
        CREATE TRIGGER exercise_uid_kept BEFORE UPDATE OF uid ON exercise
        WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
            SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
        END;
        CREATE TRIGGER illness_sync_insert AFTER INSERT ON illness  BEGIN
            UPDATE illness SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6))) WHERE id = NEW.id AND uid IS NULL;
            INSERT INTO sync_change (entity, key) SELECT 'illness', uid FROM illness WHERE id = NEW.id;
        END;
        CREATE TRIGGER illness_sync_update AFTER UPDATE OF day_id, start_time, end_time ON illness WHEN NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('illness', NEW.uid);
        END;
        CREATE TRIGGER illness_sync_delete AFTER DELETE ON illness WHEN OLD.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('illness', OLD.uid);
        END;
        CREATE TRIGGER illness_uid_kept BEFORE UPDATE OF uid ON illness
        WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
            SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
        END;
        CREATE TRIGGER stress_sync_insert AFTER INSERT ON stress  BEGIN
            UPDATE stress SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6))) WHERE id = NEW.id AND uid IS NULL;
            INSERT INTO sync_change (entity, key) SELECT 'stress', uid FROM stress WHERE id = NEW.id;
        END;
        CREATE TRIGGER stress_sync_update AFTER UPDATE OF day_id, start_time, end_time ON stress WHEN NEW.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('stress', NEW.uid);
        END;
        CREATE TRIGGER stress_sync_delete AFTER DELETE ON stress WHEN OLD.uid IS NOT NULL BEGIN
            INSERT INTO sync_change (entity, key) VALUES ('stress', OLD.uid);
        END;
        CREATE TRIGGER stress_uid_kept BEFORE UPDATE OF uid ON stress
        WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
            SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
        END;
        """
}
