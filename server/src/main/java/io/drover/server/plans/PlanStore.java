package io.drover.server.plans;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.plans.PlanRun;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The SQL of execution plans and their log lines; every method runs in the caller's transaction. */
final class PlanStore {
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };

    /** A plan as stored: what was sent, to whom, by whom. */
    record PlanRow(String id, String name, String jid, String tgt, String tgtType, List<String> minions,
                   Map<String, Object> document, String createdBy, OffsetDateTime createdAt) {
    }

    boolean exists(Handle h, String id) {
        return h.createQuery("SELECT COUNT(*) FROM plan_run WHERE id = :id").bind("id", id).mapTo(Integer.class).one() > 0;
    }

    void insert(Handle h, PlanRow row) {
        h.createUpdate("""
                        INSERT INTO plan_run (id, name, jid, tgt, tgt_type, minions, document, created_by, created_at)
                        VALUES (:id, :name, :jid, :tgt, :type, :minions, :document, :by, :at)""")
                .bind("id", row.id()).bind("name", row.name()).bind("jid", row.jid()).bind("tgt", row.tgt())
                .bind("type", row.tgtType()).bind("minions", Sql.toJson(row.minions()))
                .bind("document", Sql.documentToJson(row.document())).bind("by", row.createdBy()).bind("at", row.createdAt()).execute();
    }

    Optional<PlanRow> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM plan_run WHERE id = :id").bind("id", id).map((rs, ctx) -> row(rs)).findOne();
    }

    /** The newest plans first. */
    List<PlanRow> newest(Handle h, int limit) {
        return h.createQuery("SELECT * FROM plan_run ORDER BY created_at DESC, id LIMIT :limit").bind("limit", limit)
                .map((rs, ctx) -> row(rs)).list();
    }

    void insertLog(Handle h, String planId, String agentId, String level, String body, OffsetDateTime at) {
        h.createUpdate("INSERT INTO plan_log (plan_id, agent_id, level, body, logged_at) VALUES (:plan, :agent, :level, :body, :at)")
                .bind("plan", planId).bind("agent", agentId).bind("level", level).bind("body", body).bind("at", at).execute();
    }

    int countLogs(Handle h, String planId, String agentId) {
        return h.createQuery("SELECT COUNT(*) FROM plan_log WHERE plan_id = :plan AND agent_id = :agent").bind("plan", planId)
                .bind("agent", agentId).mapTo(Integer.class).one();
    }

    List<PlanRun.LogLine> logs(Handle h, String planId, int limit) {
        return h.createQuery("SELECT * FROM plan_log WHERE plan_id = :plan ORDER BY seq LIMIT :limit").bind("plan", planId)
                .bind("limit", limit).map((rs, ctx) -> new PlanRun.LogLine(rs.getLong("seq"), rs.getString("agent_id"),
                        rs.getString("level"), rs.getString("body"), SqlTime.read(rs, "logged_at"))).list();
    }

    private static PlanRow row(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new PlanRow(rs.getString("id"), rs.getString("name"), rs.getString("jid"), rs.getString("tgt"),
                rs.getString("tgt_type"), Sql.fromJson(rs.getString("minions"), STRINGS), Sql.jsonMap(rs.getString("document")),
                rs.getString("created_by"), SqlTime.read(rs, "created_at"));
    }
}
