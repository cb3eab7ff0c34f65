import Foundation

/// A store's rows from before migration `v13-ble-activity-source`: one band under two activity
/// sources (`ble-hrs`, older and without a model, then `ble-hrs+huami`) holding minutes, parts, exercise logs and
/// cursors of their own and in common, the band's glucose service's source (`ble-cgms`), a
/// running pod (`ble-rsc`) and a Dexcom receiver. The SQL runs on a store of schema v12 or later.
package enum OlderActivitySources {
    package static let band = "C0:11:22:33:44:55"

    package static let sql = """
        INSERT INTO favourite (id, name) VALUES (1, 'Morning run');
        INSERT INTO day (id, date) VALUES (1, '2024-05-02');
        INSERT INTO source (id, family, serial, model) VALUES
            (1, 'ble-hrs', '\(band)', NULL), (2, 'ble-hrs+huami', '\(band)', 'Mi Band 5'),
            (3, 'ble-cgms', '\(band)', 'Mi Band glucose'), (4, 'ble-rsc', 'POD-1', 'Pod'), (5, 'dexcom', 'SM12345678', 'G4Receiver');
        INSERT INTO import_run (id, source_id, started_at, finished_at, mode, records_read, records_added,
                                records_already_stored, records_skipped, time_method) VALUES
            (1, 1, '2024-05-02 06:10:00.000', '2024-05-02 06:10:00.000', 'live', 9, 4, 0, 0, 'host-anchored'),
            (2, 2, '2024-05-02 07:00:00.000', '2024-05-02 07:00:00.000', 'replay-conversation', 9, 4, 0, 0, 'host-anchored'),
            (3, 4, '2024-05-02 07:30:00.000', '2024-05-02 07:30:00.000', 'live', 1, 1, 0, 0, 'host-anchored'),
            (4, 5, '2024-05-02 08:00:00.000', '2024-05-02 08:00:00.000', 'live', 0, 0, 0, 0, 'device-local-time');
        INSERT INTO source_cursor (source_id, stream, last_record_index, import_run_id) VALUES
            (1, 'activity', 100, 1), (2, 'activity', 250, 2), (2, 'workout', 7, 2), (5, 'EGVData', 41, 4);
        INSERT INTO exercise (day_id, time, name, duration_seconds, intensity, favourite_id, source_id, device_record_key,
                              import_run_id) VALUES
            (1, '2024-05-02 06:00:00.000', 'Running', 600, 'vigorous', NULL, 1, 'exercise:2024-05-02T06:00Z', 1),
            (1, '2024-05-02 06:00:00.000', 'Running', 600, 'vigorous', 1, 2, 'exercise:2024-05-02T06:00Z', 2),
            (1, '2024-05-02 06:30:00.000', 'Walking', 900, 'moderate', NULL, 2, 'workout:2024-05-02T06:30Z', 2),
            (1, '2024-05-02 07:20:00.000', 'Walking', 300, 'light', NULL, 4, 'exercise:2024-05-02T07:20Z', 3);
        INSERT INTO activity_minute (source_id, minute, heart_rate_bpm, sensors, sample_count, import_run_id) VALUES
            (1, '2024-05-02 06:00:00.000', 90, '["heart-rate-band"]', 2, 1),
            (1, '2024-05-02 06:01:00.000', 100, '["heart-rate-band"]', 2, 1),
            (2, '2024-05-02 06:01:00.000', 110, '["heart-rate-band"]', 2, 2),
            (1, '2024-05-02 06:02:00.000', 120, '["heart-rate-band"]', 3, 1),
            (2, '2024-05-02 06:02:00.000', 121, '["heart-rate-band"]', 1, 2),
            (1, '2024-05-02 06:03:00.000', 130, '["heart-rate-band"]', 1, 1),
            (2, '2024-05-02 06:03:00.000', 134, '["heart-rate-band"]', 5, 2),
            (2, '2024-05-02 06:04:00.000', 140, '["heart-rate-band"]', 2, 2),
            (4, '2024-05-02 07:20:00.000', 95, '["heart-rate-band"]', 1, 3);
        INSERT INTO activity_minute_part (source_id, minute, first_sample, last_sample, heart_rate_sum, heart_rate_count,
            step_cadence_sum, step_cadence_count, crank_cadence_sum, crank_cadence_count, speed_sum, speed_count,
            walking_count, running_count, sensors, running_totals, sample_count, import_run_id) VALUES
            (1, '2024-05-02 06:00:00.000', '2024-05-02 06:00:10.000', '2024-05-02 06:00:40.000', 180, 2,
             0, 0, 0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 2, 1),
            (1, '2024-05-02 06:01:00.000', '2024-05-02 06:01:00.000', '2024-05-02 06:01:29.000', 200, 2,
             0, 0, 0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 2, 1),
            (2, '2024-05-02 06:01:00.000', '2024-05-02 06:01:30.000', '2024-05-02 06:01:59.000', 220, 2,
             0, 0, 0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 2, 2),
            (1, '2024-05-02 06:02:00.000', '2024-05-02 06:02:00.000', '2024-05-02 06:02:40.000', 360, 3,
             0, 0, 0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 3, 1),
            (2, '2024-05-02 06:03:00.000', '2024-05-02 06:03:00.000', '2024-05-02 06:03:50.000', 670, 5,
             0, 0, 0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 5, 2),
            (2, '2024-05-02 06:04:00.000', '2024-05-02 06:04:00.000', '2024-05-02 06:04:30.000', 280, 2,
             0, 0, 0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 2, 2);
        """
}
