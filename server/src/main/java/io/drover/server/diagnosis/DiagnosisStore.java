package io.drover.server.diagnosis;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.diagnosis.DiagnosisProgress;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisPhase;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The SQL of diagnosis: the library's documents, diagnoses with their checkpoints, and alert fingerprints. */
final class DiagnosisStore {
    private static final TypeReference<List<List<Integer>>> PATHS = new TypeReference<>() {
    };
    private static final TypeReference<Map<String, String>> STRINGS = new TypeReference<>() {
    };
    private static final TypeReference<Stored> STORED = new TypeReference<>() {
    };

    /** A library document as stored. */
    record ObjectRow(String kind, String name, KubeDocument document, List<List<Integer>> paths, boolean builtin,
                     OffsetDateTime lastScheduleAt, OffsetDateTime updatedAt) {
    }

    /** A diagnosis as stored; {@code progress} is where it is, with the times of its conditions and the nodes run. */
    record Row(long id, String name, String operationSet, String setHash, long hostId, String hostName, long bizId, String agentId,
               String source, String trigger, Map<String, String> parameters, Progress progress, String createdBy,
               OffsetDateTime createdAt, OffsetDateTime updatedAt) {
    }

    /** The pure state and what only the store keeps: condition times (one per condition) and the node runs. */
    record Progress(DiagnosisProgress.State state, List<OffsetDateTime> conditionTimes, List<DiagnosisInfo.NodeRun> nodes) {
        Progress {
            // A condition stored without its time reads back with none (null), not as an error.
            conditionTimes = java.util.Collections.unmodifiableList(new ArrayList<>(conditionTimes));
            nodes = List.copyOf(nodes);
        }
    }

    /** The JSON form of a {@link Progress} (plain fields, so the core records stay free of Jackson). */
    record Stored(String phase, int pathIndex, int nodeIndex, List<List<Integer>> failedPaths, List<Integer> succeededPath,
                  Map<String, String> results, List<DiagnosisInfo.Condition> conditions, List<DiagnosisInfo.NodeRun> nodes) {
    }

    // ---- library

    Optional<ObjectRow> object(Handle h, String kind, String name) {
        return h.createQuery("SELECT * FROM diag_object WHERE kind = :kind AND name = :name").bind("kind", kind).bind("name", name)
                .map((rs, ctx) -> object(rs)).findOne();
    }

    List<ObjectRow> objects(Handle h, String kind) {
        return h.createQuery("SELECT * FROM diag_object WHERE kind = :kind ORDER BY name").bind("kind", kind)
                .map((rs, ctx) -> object(rs)).list();
    }

    void putObject(Handle h, ObjectRow row) {
        int updated = h.createUpdate("""
                        UPDATE diag_object SET document = :document, paths = :paths, builtin = :builtin, updated_at = :at
                        WHERE kind = :kind AND name = :name""")
                .bind("kind", row.kind()).bind("name", row.name()).bind("document", Sql.toJson(row.document()))
                .bind("paths", row.paths() == null ? null : Sql.toJson(row.paths())).bind("builtin", row.builtin())
                .bind("at", row.updatedAt()).execute();
        if (updated == 0) {
            h.createUpdate("""
                            INSERT INTO diag_object (kind, name, document, paths, builtin, last_schedule_at, updated_at)
                            VALUES (:kind, :name, :document, :paths, :builtin, :last, :at)""")
                    .bind("kind", row.kind()).bind("name", row.name()).bind("document", Sql.toJson(row.document()))
                    .bind("paths", row.paths() == null ? null : Sql.toJson(row.paths())).bind("builtin", row.builtin())
                    .bind("last", row.lastScheduleAt()).bind("at", row.updatedAt()).execute();
        }
    }

    boolean deleteObject(Handle h, String kind, String name) {
        return h.createUpdate("DELETE FROM diag_object WHERE kind = :kind AND name = :name").bind("kind", kind).bind("name", name)
                .execute() > 0;
    }

    void setLastSchedule(Handle h, String name, OffsetDateTime at) {
        h.createUpdate("UPDATE diag_object SET last_schedule_at = :at WHERE kind = 'Trigger' AND name = :name").bind("name", name)
                .bind("at", at).execute();
    }

    /**
     * Advances a cron trigger's last schedule time to {@code at} unless another server advanced it past {@code seen}
     * (the time this tick counted from): true when this tick owns the start.
     */
    boolean advanceSchedule(Handle h, String name, OffsetDateTime seen, OffsetDateTime at) {
        return h.createUpdate("UPDATE diag_object SET last_schedule_at = :at WHERE kind = 'Trigger' AND name = :name "
                        + "AND (last_schedule_at IS NULL OR last_schedule_at <= :seen)").bind("name", name).bind("seen", seen)
                .bind("at", at).execute() == 1;
    }

    /** The OperationSets whose nodes name this operation. */
    List<String> setsUsing(Handle h, String operation) {
        List<String> out = new ArrayList<>();
        for (ObjectRow set : objects(h, "OperationSet")) {
            Object list = set.document().spec() == null ? null : set.document().spec().get("adjacencyList");
            if (list instanceof List<?> nodes && nodes.stream().anyMatch(n -> n instanceof Map<?, ?> m && operation.equals(m.get("operation")))) {
                out.add(set.name());
            }
        }
        return out;
    }

    private static ObjectRow object(ResultSet rs) throws SQLException {
        String paths = rs.getString("paths");
        return new ObjectRow(rs.getString("kind"), rs.getString("name"), Sql.fromJson(rs.getString("document"), KubeDocument.class),
                paths == null ? null : Sql.fromJson(paths, PATHS), rs.getBoolean("builtin"),
                SqlTime.read(rs, "last_schedule_at"), SqlTime.read(rs, "updated_at"));
    }

    // ---- diagnoses

    long insert(Handle h, Row row) {
        return h.createUpdate("""
                        INSERT INTO diagnosis (name, operation_set, set_hash, host_id, host_name, biz_id, agent_id, source, trigger_name,
                                               parameters, phase, state, created_by, created_at, updated_at)
                        VALUES (:name, :set, :hash, :host, :hostName, :biz, :agent, :source, :trigger, :parameters, :phase, :state,
                                :by, :at, :at)""")
                .bind("name", row.name()).bind("set", row.operationSet()).bind("hash", row.setHash()).bind("host", row.hostId())
                .bind("hostName", row.hostName()).bind("biz", row.bizId()).bind("agent", row.agentId()).bind("source", row.source())
                .bind("trigger", row.trigger()).bind("parameters", Sql.toJson(row.parameters()))
                .bind("phase", row.progress().state().phase().name()).bind("state", Sql.toJson(stored(row.progress())))
                .bind("by", row.createdBy()).bind("at", row.createdAt())
                .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
    }

    /** The agent call sent for a node, as {@link #markSent} recorded it. */
    record SentCall(int node, String jid) {
    }

    /** A diagnosis that has not ended: only these are run, and only these may be cancelled. */
    static final String UNFINISHED = "phase IN ('PENDING', 'RUNNING')";

    /**
     * Records the job of the call sent for the node on the checkpoint (until the node's outcome is saved), unless the
     * diagnosis ended meanwhile (cancelled): false then, and the call must not go out.
     */
    boolean markSent(Handle h, long id, int node, String jid) {
        return h.createUpdate("UPDATE diagnosis SET sent_node = :node, sent_jid = :jid WHERE id = :id AND " + UNFINISHED)
                .bind("id", id).bind("node", node).bind("jid", jid).execute() == 1;
    }

    Optional<SentCall> sent(Handle h, long id) {
        return h.createQuery("SELECT sent_node, sent_jid FROM diagnosis WHERE id = :id AND sent_jid IS NOT NULL").bind("id", id)
                .map((rs, ctx) -> new SentCall(rs.getInt(1), rs.getString(2))).findOne();
    }

    /**
     * Saves where the diagnosis is (the call sent for the node before is done with), unless it ended meanwhile: a
     * cancel (by any server of the cluster) wins over the runner's outcome, which is then refused (false).
     */
    boolean saveProgress(Handle h, long id, Progress progress, OffsetDateTime at) {
        return h.createUpdate("UPDATE diagnosis SET phase = :phase, state = :state, updated_at = :at, sent_node = NULL, sent_jid = NULL "
                        + "WHERE id = :id AND " + UNFINISHED).bind("id", id)
                .bind("phase", progress.state().phase().name()).bind("state", Sql.toJson(stored(progress))).bind("at", at)
                .execute() == 1;
    }

    /**
     * Takes the right to cancel an unfinished diagnosis: its phase becomes CANCELLED in one statement, so that from
     * then on the runner's writes ({@link #markSent}, {@link #saveProgress}) are refused, on whichever server it runs.
     * False when it had ended. The caller then writes the cancelled state in the same transaction.
     */
    boolean claimCancel(Handle h, long id, OffsetDateTime at) {
        return h.createUpdate("UPDATE diagnosis SET phase = 'CANCELLED', updated_at = :at WHERE id = :id AND " + UNFINISHED)
                .bind("id", id).bind("at", at).execute() == 1;
    }

    /** Writes the state of a diagnosis this caller ended ({@link #claimCancel}); its sent call is done with. */
    void saveEnded(Handle h, long id, Progress progress, OffsetDateTime at) {
        h.createUpdate("UPDATE diagnosis SET state = :state, updated_at = :at, sent_node = NULL, sent_jid = NULL WHERE id = :id")
                .bind("id", id).bind("state", Sql.toJson(stored(progress))).bind("at", at).execute();
    }

    /** Whether the diagnosis is missing (deleted) or has ended. */
    boolean ended(Handle h, long id) {
        return h.createQuery("SELECT COUNT(*) FROM diagnosis WHERE id = :id AND " + UNFINISHED).bind("id", id)
                .mapTo(Integer.class).one() == 0;
    }

    /** Deletes a diagnosis that has ended; false when it is missing or still unfinished. */
    boolean deleteEnded(Handle h, long id) {
        return h.createUpdate("DELETE FROM diagnosis WHERE id = :id AND NOT (" + UNFINISHED + ")").bind("id", id).execute() == 1;
    }

    /**
     * Up to {@code limit} ended diagnoses past the retention, oldest first: those created before {@code before}, and on
     * each host those beyond its {@code keepPerHost} newest ended ones. Unfinished diagnoses are neither chosen nor
     * counted.
     */
    List<Long> pastRetention(Handle h, int keepPerHost, OffsetDateTime before, int limit) {
        return h.createQuery("""
                        SELECT id FROM (
                            SELECT id, created_at, ROW_NUMBER() OVER (PARTITION BY host_id ORDER BY id DESC) AS newest
                            FROM diagnosis WHERE NOT (""" + UNFINISHED + """
                        )) ended
                        WHERE newest > :keep OR created_at < :before
                        ORDER BY id LIMIT :limit""")
                .bind("keep", keepPerHost).bind("before", before).bind("limit", limit).mapTo(Long.class).list();
    }

    /** Deletes these diagnoses, those that have ended only; how many. */
    int deleteEnded(Handle h, List<Long> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        return h.createUpdate("DELETE FROM diagnosis WHERE id IN (<ids>) AND NOT (" + UNFINISHED + ")").bindList("ids", ids).execute();
    }

    Optional<Row> find(Handle h, long id) {
        return h.createQuery("SELECT * FROM diagnosis WHERE id = :id").bind("id", id).map((rs, ctx) -> row(rs)).findOne();
    }

    /** The newest diagnoses first, of these businesses (null: all), in a phase (null: any). */
    List<Row> newest(Handle h, List<Long> businesses, DiagnosisPhase phase, int limit) {
        String where = " WHERE 1 = 1" + (businesses == null ? "" : businesses.isEmpty() ? " AND 1 = 0" : " AND biz_id IN (<biz>)")
                + (phase == null ? "" : " AND phase = :phase");
        var query = h.createQuery("SELECT * FROM diagnosis" + where + " ORDER BY id DESC LIMIT :limit").bind("limit", limit);
        if (businesses != null && !businesses.isEmpty()) {
            query.bindList("biz", businesses);
        }
        if (phase != null) {
            query.bind("phase", phase.name());
        }
        return query.map((rs, ctx) -> row(rs)).list();
    }

    int count(Handle h, DiagnosisPhase phase) {
        return h.createQuery("SELECT COUNT(*) FROM diagnosis WHERE phase = :phase").bind("phase", phase.name()).mapTo(Integer.class).one();
    }

    private static Row row(ResultSet rs) throws SQLException {
        String agent = rs.getString("agent_id");
        return new Row(rs.getLong("id"), rs.getString("name"), rs.getString("operation_set"), rs.getString("set_hash"),
                rs.getLong("host_id"), rs.getString("host_name"), rs.getLong("biz_id"), agent, rs.getString("source"),
                rs.getString("trigger_name"), Sql.fromJson(rs.getString("parameters"), STRINGS),
                progress(Sql.fromJson(rs.getString("state"), STORED)), rs.getString("created_by"),
                SqlTime.read(rs, "created_at"), SqlTime.read(rs, "updated_at"));
    }

    static Stored stored(Progress p) {
        DiagnosisProgress.State s = p.state();
        List<DiagnosisInfo.Condition> conditions = new ArrayList<>();
        for (int i = 0; i < s.conditions().size(); i++) {
            var c = s.conditions().get(i);
            conditions.add(new DiagnosisInfo.Condition(c.type(), c.reason(), c.message(), i < p.conditionTimes().size() ? p.conditionTimes().get(i) : null));
        }
        return new Stored(s.phase().name(), s.pathIndex(), s.nodeIndex(), s.failedPaths(), s.succeededPath(), s.results(), conditions, p.nodes());
    }

    static Progress progress(Stored s) {
        List<DiagnosisProgress.Condition> conditions = s.conditions().stream()
                .map(c -> new DiagnosisProgress.Condition(c.type(), c.reason(), c.message())).toList();
        return new Progress(new DiagnosisProgress.State(DiagnosisPhase.valueOf(s.phase()), s.pathIndex(), s.nodeIndex(),
                s.failedPaths(), s.succeededPath(), s.results(), conditions),
                s.conditions().stream().map(DiagnosisInfo.Condition::time).toList(), s.nodes() == null ? List.of() : s.nodes());
    }

    // ---- alerts

    /**
     * Records that an alert with this fingerprint starts a diagnosis now, unless one did after {@code since}: true when
     * it is recorded (and so the alert is not a repeat). Run in the transaction that stores the diagnosis, so that a
     * start that fails leaves the fingerprint unclaimed; two servers claiming at once: one wins.
     */
    boolean claimFingerprint(Handle h, String fingerprint, OffsetDateTime since, OffsetDateTime now) {
        int updated = h.createUpdate("UPDATE diag_alert SET fired_at = :now WHERE fingerprint = :fp AND fired_at <= :since")
                .bind("fp", fingerprint).bind("since", since).bind("now", now).execute();
        if (updated > 0) {
            return true;
        }
        return h.createUpdate("INSERT INTO diag_alert (fingerprint, fired_at) VALUES (:fp, :now) ON CONFLICT DO NOTHING")
                .bind("fp", fingerprint).bind("now", now).execute() == 1;
    }

    int pruneFingerprints(Handle h, OffsetDateTime before) {
        return h.createUpdate("DELETE FROM diag_alert WHERE fired_at < :before").bind("before", before).execute();
    }
}
