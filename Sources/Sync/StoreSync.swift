import Foundation
import Logging
import PostgresNIO
import Store

/// What one sync sent: rows written, deleted or re-tagged on the server, by central table, and
/// the batches (server transactions) it took. A sync of a store the server already holds sends
/// nothing.
package struct SyncReport: Sendable, Equatable {
    /// Rows inserted or changed, by central table.
    package var written: [String: Int] = [:]
    /// Rows deleted (logs removed in the app), by central table.
    package var deleted: [String: Int] = [:]
    /// Rows sent before whose tag changed (the store's thresholds changed), by central table.
    package var retagged: [String: Int] = [:]
    /// Server transactions that carried data.
    package var batches = 0

    package var rowsWritten: Int { written.values.reduce(0, +) }
    package var rowsDeleted: Int { deleted.values.reduce(0, +) }
    package var rowsRetagged: Int { retagged.values.reduce(0, +) }
    package var isEmpty: Bool { rowsWritten == 0 && rowsDeleted == 0 && rowsRetagged == 0 }

    package var summary: String {
        guard !isEmpty else { return "nothing to send: the server holds this store's data" }
        let written = self.written.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let deleted = self.deleted.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let retagged = self.retagged.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        var text = "sent \(rowsWritten) row\(rowsWritten == 1 ? "" : "s") in \(batches) batch\(batches == 1 ? "" : "es")"
        if !written.isEmpty { text += " (\(written.joined(separator: ", ")))" }
        if !deleted.isEmpty { text += "; deleted \(rowsDeleted) (\(deleted.joined(separator: ", ")))" }
        if !retagged.isEmpty { text += "; re-tagged \(rowsRetagged) (\(retagged.joined(separator: ", ")))" }
        return text
    }
}

/// Pushes one local store to a central PostgreSQL under one patient id.
///
/// Every batch is one server transaction that writes its rows and advances the patient's cursor
/// for this store (`sync_cursor`, keyed by patient and ``SharedStore/syncStoreID()``); rows are
/// upserted by their keys, so a sync stopped at any point and run again sends what is left and
/// ends with the server holding the store's data once. A session-level advisory lock on the
/// patient refuses a second sync of the same patient while one runs (after waiting ``lockWait``
/// for it to end); syncs of different patients touch disjoint rows and run side by side.
///
/// The server's tags of the rows a store sent follow the thresholds its cursor records
/// (`sync_cursor.tag_thresholds`). When the store's thresholds differ, the sync first re-tags
/// those rows from the store's own tags, in batches that each move `retag_glucose_id`, so that a
/// re-tag stopped part way resumes where it was.
package struct StoreSync: Sendable {
    package var store: SharedStore
    package var target: SyncTarget
    package var password: String?
    package var patient: String
    /// Local rows per batch.
    package var batchSize: Int
    /// How long to wait for another sync of the patient to end before refusing.
    package var lockWait: Duration
    package var logger: Logger
    /// Called after each batch commits, with the cursor it moved and where to: for progress, and
    /// for tests that change the server between two batches.
    package var batchCommitted: (@Sendable (_ cursor: String, _ position: Int64?) async -> Void)?

    package init(
        store: SharedStore, target: SyncTarget, password: String?, patient: String, batchSize: Int = 5000,
        lockWait: Duration = .seconds(10), logger: Logger = Logger(label: "glucobridge.sync")
    ) throws(SyncError) {
        guard !patient.isEmpty, patient.count <= 200 else { throw .invalidPatient(patient) }
        self.store = store
        self.target = target
        self.password = password
        self.patient = patient
        self.batchSize = max(1, batchSize)
        self.lockWait = lockWait
        self.logger = logger
    }

    /// Runs the sync to its end.
    package func run() async throws(SyncError) -> SyncReport {
        let storeID = try local { try store.syncStoreID() }
        let connection = try await connect()
        do throws(SyncError) {
            let report = try await sync(on: connection, storeID: storeID)
            try? await connection.close()
            return report
        } catch {
            try? await connection.close()
            throw error
        }
    }

    // MARK: - Steps

    private func sync(on connection: PostgresConnection, storeID: String) async throws(SyncError) -> SyncReport {
        try await CentralMigrator(logger: logger, server: target.display).migrate(connection)
        try await lockPatient(connection)

        let session = CopySession()
        session.partitions = try await patientPartitions(connection)
        var report = SyncReport()
        // Each batch moves the cursor only from the value it started from. When the server's
        // cursor is elsewhere (it lost a batch, or was moved behind this sync's back), the batch
        // is rolled back and the sync starts again from the server's cursor: rows it holds
        // already are merged by key, so nothing is skipped and nothing is there twice.
        var restarts = 0
        while true {
            do throws(SyncError) {
                try await pass(connection, session, storeID: storeID, report: &report)
                return report
            } catch .cursorMoved(let cursor, let expected, let found) where restarts < Self.cursorRestarts {
                restarts += 1
                logger.warning(
                    "the server's sync cursor is not where the last batch left it: sending again from the server's position",
                    metadata: [
                        "cursor": "\(cursor)", "expected": "\(expected.map(String.init) ?? "none")",
                        "found": "\(found.map(String.init) ?? "none")",
                    ])
            }
        }
    }

    /// The rule the store's tags follow, kept after the thresholds in `sync_cursor.tag_thresholds`:
    /// 2 since the store's migration `v9-tags-from-exact-values` (a tag decided on the value as
    /// the device sent it). A cursor an older glucobridge wrote has four thresholds and no rule:
    /// its rows were tagged on a whole mg/dL, and the store re-tagged since, so they differ from
    /// the cursor and the next sync re-tags them on the server like new thresholds.
    static let tagRule: Int32 = 2

    /// How many times one sync starts again from a server cursor that moved.
    static let cursorRestarts = 5

    /// One pass from the server's cursor to the end of the store.
    private func pass(
        _ connection: PostgresConnection, _ session: CopySession, storeID: String, report: inout SyncReport
    ) async throws(SyncError) {
        var cursor = try await prepare(connection, session, storeID: storeID)
        if let position = cursor["retag_glucose_id"] {
            try await retag(
                connection, session, storeID: storeID, after: position, readingsThrough: cursor["glucose_reading_id"] ?? 0,
                report: &report)
        }
        let steps: [(SyncFeed, CentralTable, String)] = [
            (.sources, .sources, "source_id"),
            (.importRuns, .importRuns, "import_run_id"),
            (.glucoseReadings, .glucoseReadings, "glucose_reading_id"),
            (.activitySessions, .activitySessions, "activity_session_id"),
        ]
        for (feed, table, column) in steps {
            var rows = try local { try store.syncRows(feed, after: cursor[column] ?? 0, limit: batchSize) }
            while case .integer(let last)? = rows.values(of: "id").last {
                // The next batch is read from the store while the server writes this one.
                let next = prefetch(feed, after: last)
                var minutes: SyncRows?
                if feed == .importRuns, case .integer(let first)? = rows.values(of: "id").first {
                    minutes = try local { try store.syncActivityMinutes(importRuns: first...last) }
                }
                let sent = rows
                do throws(SyncError) {
                    try await batch(
                        connection, session, storeID: storeID, cursor: column, from: cursor[column] ?? 0, to: last,
                        report: &report
                    ) { send in
                        try await send(table, sent, .appended)
                        if let minutes, !minutes.rows.isEmpty {
                            // A minute a later session completed replaces the part the server may hold.
                            let completed = minutes.values(of: "completed").contains(.integer(1))
                            try await send(.activityMinutes, minutes, completed ? .changed : .appended)
                        }
                    }
                } catch {
                    _ = await next.value
                    throw error
                }
                cursor[column] = last
                do {
                    rows = try await next.value.get()
                } catch {
                    throw .store(error)
                }
            }
        }
        try await sendChanges(connection, session, storeID: storeID, after: cursor["change_seq"] ?? 0, report: &report)
    }

    /// Reads up to ``batchSize`` rows of `feed` after local id `id` off the caller's task, so that
    /// the store is read while the server writes the batch before them.
    private func prefetch(_ feed: SyncFeed, after id: Int64) -> Task<Result<SyncRows, StoreError>, Never> {
        let store = self.store
        let limit = batchSize
        return Task.detached { Result { () throws(StoreError) in try store.syncRows(feed, after: id, limit: limit) } }
    }

    /// Takes the patient's session-level advisory lock, waiting up to ``lockWait`` for a sync
    /// that holds it (e.g. one just killed, whose server session has not ended yet).
    private func lockPatient(_ connection: PostgresConnection) async throws(SyncError) {
        let deadline = ContinuousClock.now + lockWait
        while true {
            let locked = try await server {
                try await connection.query(
                    "SELECT pg_try_advisory_lock(hashtextextended('glucobridge-sync-patient:' || \(patient), 0))",
                    logger: logger
                ).collect().first?.decode(Bool.self) ?? false
            }
            if locked { return }
            guard ContinuousClock.now < deadline else { throw .patientBusy(patient: patient, server: target.display) }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The partition that holds the patient's rows, by hash-partitioned central table. Rows
    /// copied straight into it are not routed one by one through the parent; the partition checks
    /// each against its bound instead (PostgreSQL documentation, "Table Partitioning" and "COPY").
    /// A table whose partition is not a hash partition of its parent, or one this role may not
    /// insert into itself (a grant on the parent does not cover its partitions), is copied into
    /// through the parent.
    private func patientPartitions(_ connection: PostgresConnection) async throws(SyncError) -> [String: String] {
        try await server {
            let rows = try await connection.query(
                """
                SELECT parent.relname, child.relname
                FROM pg_inherits i
                JOIN pg_class parent ON parent.oid = i.inhparent
                JOIN pg_class child ON child.oid = i.inhrelid
                CROSS JOIN LATERAL (SELECT pg_get_expr(child.relpartbound, child.oid) AS bound) b
                WHERE i.inhparent IN (SELECT to_regclass(name) FROM unnest(\(CentralSchema.partitionedTables)::text[]) AS name)
                    AND has_table_privilege(child.oid, 'INSERT')
                    AND CASE WHEN b.bound ~ '^FOR VALUES WITH \\(modulus \\d+, remainder \\d+\\)$'
                        THEN satisfies_hash_partition(
                            i.inhparent, substring(b.bound FROM 'modulus (\\d+)')::int,
                            substring(b.bound FROM 'remainder (\\d+)')::int, \(patient)::text)
                        ELSE false END
                """, logger: logger
            ).collect()
            var partitions: [String: String] = [:]
            for row in rows {
                let (parent, child) = try row.decode((String, String).self)
                partitions[parent] = child
            }
            return partitions
        }
    }

    /// Creates the patient and the store's cursor when missing (and keeps the patient's zone and
    /// thresholds current), and reads the cursor. When the store's thresholds are not those its
    /// rows on the server were tagged with, a re-tag starts (`retag_glucose_id` 0), unless the
    /// store has sent no glucose rows yet.
    private func prepare(
        _ connection: PostgresConnection, _ session: CopySession, storeID: String
    ) async throws(SyncError) -> [String: Int64] {
        let thresholds = try local { try store.thresholds() }
        let tagThresholds = [thresholds.veryLow, thresholds.low, thresholds.high, thresholds.veryHigh].map(Int32.init) + [Self.tagRule]
        session.tagThresholds = thresholds
        let zone = store.timeZone.identifier
        return try await server {
            try await connection.withTransaction(logger: logger) { connection in
                _ = try await connection.query(
                    """
                    INSERT INTO patient AS p (patient_id, time_zone, very_low_mgdl, low_mgdl, high_mgdl, very_high_mgdl)
                    VALUES (\(patient), \(zone), \(thresholds.veryLow), \(thresholds.low), \(thresholds.high), \(thresholds.veryHigh))
                    ON CONFLICT (patient_id) DO UPDATE SET time_zone = EXCLUDED.time_zone,
                        very_low_mgdl = EXCLUDED.very_low_mgdl, low_mgdl = EXCLUDED.low_mgdl,
                        high_mgdl = EXCLUDED.high_mgdl, very_high_mgdl = EXCLUDED.very_high_mgdl
                    WHERE (p.time_zone, p.very_low_mgdl, p.low_mgdl, p.high_mgdl, p.very_high_mgdl)
                        IS DISTINCT FROM (EXCLUDED.time_zone, EXCLUDED.very_low_mgdl, EXCLUDED.low_mgdl,
                                          EXCLUDED.high_mgdl, EXCLUDED.very_high_mgdl)
                    """, logger: logger
                ).collect()
                _ = try await connection.query(
                    """
                    INSERT INTO sync_cursor (patient_id, store_uid, tag_thresholds)
                    VALUES (\(patient), \(storeID), \(tagThresholds)) ON CONFLICT DO NOTHING
                    """, logger: logger
                ).collect()
                _ = try await connection.query(
                    """
                    UPDATE sync_cursor SET tag_thresholds = \(tagThresholds),
                        retag_glucose_id = CASE WHEN glucose_reading_id > 0 OR change_seq > 0 THEN 0 END
                    WHERE patient_id = \(patient) AND store_uid = \(storeID)
                        AND tag_thresholds IS DISTINCT FROM \(tagThresholds)
                    """, logger: logger
                ).collect()
                let row = try await connection.query(
                    """
                    SELECT source_id, import_run_id, glucose_reading_id, activity_session_id, change_seq, retag_glucose_id
                    FROM sync_cursor WHERE patient_id = \(patient) AND store_uid = \(storeID)
                    """, logger: logger
                ).collect().first
                guard let values = try row?.decode((Int64, Int64, Int64, Int64, Int64, Int64?).self) else { return [:] }
                var cursor = [
                    "source_id": values.0, "import_run_id": values.1, "glucose_reading_id": values.2,
                    "activity_session_id": values.3, "change_seq": values.4,
                ]
                cursor["retag_glucose_id"] = values.5
                return cursor
            }
        }
    }

    /// Sends the app's inserts, edits and removals from the change log after `sequence`.
    private func sendChanges(
        _ connection: PostgresConnection, _ session: CopySession, storeID: String, after sequence: Int64,
        report: inout SyncReport
    ) async throws(SyncError) {
        // A store's first sync sends the whole change log: its logs are new to the server (their
        // uids are this store's), so they are copied straight in like device data. Later syncs
        // send mostly edits, which are merged by key.
        let kind: SentRows = sequence == 0 ? .appended : .changed
        var sequence = sequence
        while true {
            let changes = try local { try store.syncChanges(after: sequence, limit: batchSize) }
            guard let last = changes.last?.sequence else { return }
            var keys: [SyncEntity: [String]] = [:]
            var seen = Set<String>()
            for change in changes where seen.insert("\(change.entity.rawValue):\(change.key)").inserted {
                keys[change.entity, default: []].append(change.key)
            }
            var current: [(SyncEntity, SyncRows, [String])] = []
            for entity in SyncEntity.allCases {
                guard let wanted = keys[entity] else { continue }
                let rows = try local { try store.syncCurrentRows(entity, keys: wanted) }
                let present = Set(
                    rows.values(of: "key").compactMap { value -> String? in
                        if case .text(let key) = value { return key }
                        return nil
                    })
                // A session is never removed from the server: device data is append-only.
                let gone = entity == .session ? [] : wanted.filter { !present.contains($0) }
                current.append((entity, rows, gone))
            }
            var deleted: [String: Int] = [:]
            try await batch(
                connection, session, storeID: storeID, cursor: "change_seq", from: sequence, to: last, report: &report
            ) { send in
                for (entity, rows, gone) in current {
                    let table = CentralTable.table(for: entity)
                    if !rows.rows.isEmpty { try await send(table, rows, kind) }
                    if !gone.isEmpty {
                        let count =
                            try await connection.query(
                                PostgresQuery(unsafeSQL: table.delete, binds: Self.binds(patient, gone)), logger: logger
                            ).collect().first?.decode(Int.self) ?? 0
                        deleted[table.name, default: 0] += count
                    }
                }
            }
            for (table, count) in deleted { report.deleted[table, default: 0] += count }
            sequence = last
        }
    }

    /// Sends the store's tags of the glucose rows it sent before (device readings up to local id
    /// `readingsThrough`, and the app's logs) after local glucose id `position`, batch by batch;
    /// the last batch ends the re-tag (`retag_glucose_id` NULL).
    private func retag(
        _ connection: PostgresConnection, _ session: CopySession, storeID: String, after position: Int64,
        readingsThrough: Int64, report: inout SyncReport
    ) async throws(SyncError) {
        var position = position
        while true {
            let rows = try local { try store.syncTags(after: position, readingsThrough: readingsThrough, limit: batchSize) }
            let finished = rows.rows.count < batchSize
            guard case .integer(let last)? = rows.values(of: "id").last else {
                try await server {
                    _ = try await connection.query(
                        """
                        UPDATE sync_cursor SET retag_glucose_id = NULL
                        WHERE patient_id = \(patient) AND store_uid = \(storeID)
                        """, logger: logger
                    ).collect()
                }
                return
            }
            let uid = rows.columns.firstIndex(of: "uid")
            var readings = SyncRows(columns: rows.columns, rows: [], thresholds: rows.thresholds)
            var logs = SyncRows(columns: rows.columns, rows: [], thresholds: rows.thresholds)
            for row in rows.rows {
                if let uid, row[uid] != .null { logs.rows.append(row) } else { readings.rows.append(row) }
            }
            try await batch(
                connection, session, storeID: storeID, cursor: "retag_glucose_id", from: position, to: finished ? nil : last,
                report: &report
            ) { send in
                if !readings.rows.isEmpty { try await send(.readingTags, readings, .tags) }
                if !logs.rows.isEmpty { try await send(.logTags, logs, .tags) }
            }
            if finished { return }
            position = last
        }
    }

    /// Runs one batch in one server transaction: `body` sends rows through the function it is
    /// given (each table at most once), then the cursor `column` of this store moves from
    /// `expected` to `position` (NULL when nil): a compare-and-set, so that a cursor found
    /// elsewhere rolls the batch back and throws ``SyncError/cursorMoved(cursor:expected:found:)``.
    private func batch(
        _ connection: PostgresConnection, _ session: CopySession, storeID: String, cursor column: String,
        from expected: Int64?, to position: Int64?, report: inout SyncReport,
        _ body: (_ send: (CentralTable, SyncRows, SentRows) async throws -> Void) async throws -> Void
    ) async throws(SyncError) {
        var written: [String: Int] = [:]
        var retagged: [String: Int] = [:]
        // Rows whose tags follow other thresholds than the cursor records (the store's changed
        // during this sync) make them unknown: the next sync then checks every tag.
        var otherTags = false
        let tagThresholds = session.tagThresholds
        let partitions = session.partitions
        // What this transaction learns of the server is kept only once it commits.
        var learnt = session.state
        let patient = self.patient
        let logger = self.logger
        try await server {
            try await connection.withTransaction(logger: logger) { connection in
                try await body { table, rows, kind in
                    if let thresholds = rows.thresholds, thresholds != tagThresholds { otherTags = true }
                    if table.bySource { try await resolveSources(rows, into: &learnt, connection) }
                    let lines = try rows.copyText(for: table, patient: patient, storeID: storeID, sourceIDs: learnt.sourceIDs)
                    if kind == .tags {
                        if !learnt.stages.contains(table.stage) {
                            _ = try await connection.query(PostgresQuery(unsafeSQL: table.createStage), logger: logger).collect()
                            learnt.stages.insert(table.stage)
                        }
                        try await copy(lines, into: table.stage, columns: table.copyColumns, connection)
                        let count =
                            try await connection.query(
                                PostgresQuery(unsafeSQL: table.retag, binds: Self.binds(patient)), logger: logger
                            ).collect().first?.decode(Int.self) ?? 0
                        retagged[table.name, default: 0] += count
                        return
                    }
                    if kind == .appended, !learnt.merged.contains(table.name) {
                        _ = try await connection.query("SAVEPOINT glucobridge_copy", logger: logger).collect()
                        do {
                            try await copy(
                                lines, into: partitions[table.name] ?? table.name, columns: table.copyColumns,
                                connection)
                            _ = try await connection.query("RELEASE SAVEPOINT glucobridge_copy", logger: logger).collect()
                            written[table.name, default: 0] += rows.rows.count
                            return
                        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                            // A row is on the server already (another store of the patient sent
                            // it): this table's rows are merged by key from now on.
                            _ = try await connection.query("ROLLBACK TO SAVEPOINT glucobridge_copy", logger: logger).collect()
                            learnt.merged.insert(table.name)
                            logger.debug("rows already on the server: merging by key", metadata: ["table": "\(table.name)"])
                        }
                    }
                    if !learnt.stages.contains(table.stage) {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: table.createStage), logger: logger).collect()
                        learnt.stages.insert(table.stage)
                    }
                    try await copy(lines, into: table.stage, columns: table.copyColumns, connection)
                    let count =
                        try await connection.query(PostgresQuery(unsafeSQL: table.merge), logger: logger)
                        .collect().first?.decode(Int.self) ?? 0
                    written[table.name, default: 0] += count
                }
                var binds = Self.binds(patient, storeID)
                if let position { binds.append(position) } else { binds.appendNull() }
                if let expected { binds.append(expected) } else { binds.appendNull() }
                let moved = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE sync_cursor SET \(column) = $3, last_batch_at = now()\(otherTags ? ", tag_thresholds = NULL" : "")
                            WHERE patient_id = $1 AND store_uid = $2 AND \(column) IS NOT DISTINCT FROM $4
                            RETURNING 1
                            """,
                        binds: binds),
                    logger: logger
                ).collect()
                guard moved.isEmpty else { return }
                let found = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT \(column) FROM sync_cursor WHERE patient_id = $1 AND store_uid = $2",
                        binds: Self.binds(patient, storeID)),
                    logger: logger
                ).collect().first?.decode(Int64?.self)
                // Rolls the batch back; `server` hands the error on as it is.
                throw SyncError.cursorMoved(cursor: column, expected: expected, found: found ?? nil)
            }
        }
        session.state = learnt
        report.batches += 1
        for (table, count) in written { report.written[table, default: 0] += count }
        for (table, count) in retagged { report.retagged[table, default: 0] += count }
        logger.debug("batch committed", metadata: ["cursor": "\(column)", "position": "\(position.map(String.init) ?? "none")"])
        await batchCommitted?(column, position)
    }

    /// Makes sure every device the rows name has its server row, and learns its id. A device added
    /// after this sync read the sources is created here, its model sent by the next sync.
    private func resolveSources(
        _ rows: SyncRows, into state: inout CopySession.State, _ connection: PostgresConnection
    ) async throws {
        let missing = rows.sourceKeys.filter { state.sourceIDs[$0] == nil }
        guard !missing.isEmpty else { return }
        _ = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO source (patient_id, family, serial)
                    SELECT $1, u.family, u.serial FROM unnest($2::text[], $3::text[]) AS u(family, serial)
                    ON CONFLICT DO NOTHING
                    """,
                binds: Self.binds(patient, missing.map(\.family), missing.map(\.serial))),
            logger: logger
        ).collect()
        let found = try await connection.query(
            "SELECT id, family, serial FROM source WHERE patient_id = \(patient)", logger: logger
        ).collect()
        for row in found {
            let (id, family, serial) = try row.decode((Int64, String, String).self)
            state.sourceIDs[SourceKey(family: family, serial: serial)] = id
        }
    }

    /// Sends `lines` (text-format COPY data) into `table`.
    private func copy(
        _ lines: ByteBuffer, into table: String, columns: [String], _ connection: PostgresConnection
    ) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            if lines.readableBytes > 0 { try await writer.write(lines) }
        }
    }

    // MARK: - Plumbing

    private func connect() async throws(SyncError) -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: target.host, port: target.port, username: target.user, password: password,
            database: target.database, tls: try target.tls())
        // The session's time zone is set in the startup message (PostgreSQL documentation,
        // "Message Formats": StartupMessage), not by a statement of its own.
        configuration.options.additionalStartupParameters = [("TimeZone", "UTC")]
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw .unreachable(server: target.display, reason: Self.describe(error))
        }
    }

    private static func binds(_ values: any PostgresDynamicTypeEncodable...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }

    private func local<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.database("\(error)"))
        }
    }

    private func server<T>(_ body: () async throws -> T) async throws(SyncError) -> T {
        do {
            return try await body()
        } catch let error as SyncError {
            throw error
        } catch let error as PostgresTransactionError where error.closureError is SyncError {
            throw error.closureError as! SyncError
        } catch {
            throw .server(Self.describe(error))
        }
    }

    /// The server's own message when there is one (PSQLError hides it from `description`).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.commitError ?? error.beginError { return describe(inner) }
        }
        if let error = error as? SyncError { return error.description }
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let message = info[.message] {
                return [message, info[.detail]].compactMap { $0 }.joined(separator: ": ")
            }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Whether rows are likely on the server already.
enum SentRows: Sendable {
    /// New unless another store of the patient sent them (device data read from an id cursor,
    /// the change log of a store's first sync): copied straight into the table, merged by key
    /// only when the server holds one of them.
    case appended
    /// Often already there (edits): merged by key.
    case changed
    /// The store's tags of rows already on the server (``CentralTable/retags``): staged, and
    /// set where they differ.
    case tags
}

/// What one sync learns of its server session: the devices' central ids, the staging tables it
/// made, and the tables whose rows met rows already there (merged by key from then on); and the
/// thresholds the cursor records for the store's tags.
final class CopySession {
    struct State {
        var sourceIDs: [SourceKey: Int64] = [:]
        var stages: Set<String> = []
        var merged: Set<String> = []
    }

    var state = State()
    var tagThresholds: GlucoseThresholds?
    /// The patient's partition of each hash-partitioned table (``StoreSync/patientPartitions(_:)``).
    var partitions: [String: String] = [:]
}

/// Applies the central schema's missing migrations, one transaction each, under a
/// transaction-level advisory lock so that concurrent first syncs apply them once.
struct CentralMigrator {
    var logger: Logger
    var server: String

    func migrate(_ connection: PostgresConnection) async throws(SyncError) {
        let known = CentralSchema.migrations.count
        // Nearly every sync finds the schema current: it reads the version without the lock
        // (which would make many syncs that start at once wait for each other) and goes on.
        if try await recordedVersion(connection) == known { return }
        do {
            try await connection.withTransaction(logger: logger) { connection in
                _ = try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended('glucobridge-central-schema', 0))", logger: logger
                ).collect()
                _ = try await connection.query(PostgresQuery(unsafeSQL: CentralSchema.versionTable), logger: logger).collect()
                let current = try await newestVersion(connection) ?? 0
                guard current <= known else {
                    throw SyncError.newerCentralSchema(server: server, version: current, known: known)
                }
                for version in (current + 1)..<(known + 1) {
                    for statement in CentralSchema.migrations[version - 1] {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
                    }
                    _ = try await connection.query(
                        "INSERT INTO sync_schema_version (version) VALUES (\(version))", logger: logger
                    ).collect()
                }
            }
        } catch {
            if let inner = (error as? PostgresTransactionError)?.closureError as? SyncError { throw inner }
            throw .server("the central schema could not be applied: \(StoreSync.describe(error))")
        }
    }

    /// The newest schema version the server records, or nil when it has no version table yet.
    private func recordedVersion(_ connection: PostgresConnection) async throws(SyncError) -> Int? {
        do {
            let exists =
                try await connection.query(
                    "SELECT to_regclass('sync_schema_version') IS NOT NULL", logger: logger
                ).collect().first?.decode(Bool.self) ?? false
            guard exists else { return nil }
            return try await newestVersion(connection)
        } catch {
            throw .server("the central schema's version could not be read: \(StoreSync.describe(error))")
        }
    }

    /// The newest version in `sync_schema_version` (0 when it is empty), which must exist.
    private func newestVersion(_ connection: PostgresConnection) async throws -> Int? {
        try await connection.query(
            "SELECT coalesce(max(version), 0) FROM sync_schema_version", logger: logger
        ).collect().first?.decode(Int.self)
    }
}
