package io.drover.server.jobs;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.jobs.JobResult;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/** The SQL of jobs and their returns; every method runs in the caller's transaction. */
final class JobRepository {
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };
    private static final TypeReference<List<Object>> LIST = new TypeReference<>() {
    };
    private final Clock clock;

    JobRepository(Clock clock) {
        this.clock = clock;
    }

    /** One return to store. */
    record ReturnRow(String jid, String minionId, String retJson, int retcode, boolean success) {
    }

    /** {@code arg} as it may be shown; {@code sealedArg} what the agents are sent, sealed (null: the same as arg). */
    void insertJob(Handle h, String jid, String fun, List<Object> arg, String sealedArg, String tgt, String type,
                   List<String> minions, String actor) {
        h.createUpdate("""
                        INSERT INTO job (jid, fun, arg, sealed_arg, tgt, tgt_type, minions, actor, created_at)
                        VALUES (:jid, :fun, :arg, :sealed, :tgt, :type, :minions, :actor, :now)""")
                .bind("jid", jid).bind("fun", fun).bind("arg", Sql.toJson(arg)).bind("sealed", sealedArg).bind("tgt", tgt)
                .bind("type", type).bind("minions", Sql.toJson(minions)).bind("actor", actor)
                .bind("now", OffsetDateTime.now(clock)).execute();
    }

    /** Deletes up to {@code limit} jobs created before the cutoff, with their returns; returns how many. */
    int deleteCreatedBefore(Handle h, OffsetDateTime cutoff, int limit) {
        return h.createUpdate("DELETE FROM job WHERE jid IN (SELECT jid FROM job WHERE created_at < :cutoff LIMIT :limit)")
                .bind("cutoff", cutoff).bind("limit", limit).execute();
    }

    /** The sealed arguments of a job that carries a secret (empty for any other job). */
    Optional<String> sealedArg(Handle h, String jid) {
        return h.createQuery("SELECT sealed_arg FROM job WHERE jid = :jid").bind("jid", jid).mapTo(String.class).findOne()
                .filter(java.util.Objects::nonNull);
    }

    /** For each job, the minions that have not answered yet. */
    Map<String, Set<String>> awaiting(Handle h, Collection<String> jids) {
        Map<String, Set<String>> awaiting = new HashMap<>();
        h.createQuery("SELECT jid, minions FROM job WHERE jid IN (<jids>)").bindList("jids", List.copyOf(jids))
                .map((rs, ctx) -> awaiting.put(rs.getString(1), new HashSet<>(Sql.fromJson(rs.getString(2), STRINGS))))
                .forEach(ignored -> { });
        h.createQuery("SELECT jid, minion_id FROM job_return WHERE jid IN (<jids>)").bindList("jids", List.copyOf(jids))
                .map((rs, ctx) -> awaiting.getOrDefault(rs.getString(1), new HashSet<>()).remove(rs.getString(2)))
                .forEach(ignored -> { });
        return awaiting;
    }

    /** The function each job was sent as: what its returns are judged by, never the fun an agent claims. */
    Map<String, String> funs(Handle h, Collection<String> jids) {
        Map<String, String> funs = new HashMap<>();
        h.createQuery("SELECT jid, fun FROM job WHERE jid IN (<jids>)").bindList("jids", List.copyOf(jids))
                .map((rs, ctx) -> funs.put(rs.getString(1), rs.getString(2))).forEach(ignored -> { });
        return funs;
    }

    void insertReturns(Handle h, List<ReturnRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        var insert = h.prepareBatch("""
                INSERT INTO job_return (jid, minion_id, ret, retcode, success, at)
                VALUES (:jid, :id, :ret, :retcode, :success, :now)""");
        OffsetDateTime now = OffsetDateTime.now(clock);
        for (ReturnRow r : rows) {
            insert.bind("jid", r.jid()).bind("id", r.minionId()).bind("ret", r.retJson()).bind("retcode", r.retcode())
                    .bind("success", r.success()).bind("now", now).add();
        }
        insert.execute();
    }

    /** The job with its returns and the minions still missing. */
    Optional<JobResult> find(Handle h, String jid) {
        Optional<JobResult> job = h.createQuery("SELECT * FROM job WHERE jid = :jid").bind("jid", jid)
                .map((rs, ctx) -> new JobResult(rs.getString("jid"), rs.getString("fun"),
                        Sql.fromJson(rs.getString("arg"), LIST), rs.getString("tgt"), rs.getString("tgt_type"),
                        Sql.fromJson(rs.getString("minions"), STRINGS), List.of(),
                        SqlTime.read(rs, "created_at"), Map.of())).findOne();
        if (job.isEmpty()) {
            return job;
        }
        JobResult found = job.get();
        Map<String, JobResult.Return> returns = new LinkedHashMap<>();
        h.createQuery("SELECT * FROM job_return WHERE jid = :jid ORDER BY at").bind("jid", jid)
                .map((rs, ctx) -> returns.put(rs.getString("minion_id"), storedReturn(rs))).forEach(ignored -> { });
        List<String> missing = found.minions().stream().filter(id -> !returns.containsKey(id)).toList();
        return Optional.of(new JobResult(found.jid(), found.fun(), found.arg(), found.tgt(), found.tgtType(),
                found.minions(), missing, found.createdAt(), returns));
    }

    /** The minions a job targeted; empty when there is no such job. */
    Optional<List<String>> minions(Handle h, String jid) {
        return h.createQuery("SELECT minions FROM job WHERE jid = :jid").bind("jid", jid)
                .map((rs, ctx) -> Sql.fromJson(rs.getString(1), STRINGS)).findOne();
    }

    /** One minion's return to a job, if it is stored. */
    Optional<JobResult.Return> findReturn(Handle h, String jid, String minionId) {
        return h.createQuery("SELECT * FROM job_return WHERE jid = :jid AND minion_id = :minion").bind("jid", jid)
                .bind("minion", minionId).map((rs, ctx) -> storedReturn(rs)).findOne();
    }

    private static JobResult.Return storedReturn(ResultSet rs) throws SQLException {
        return new JobResult.Return(Sql.fromJson(rs.getString("ret"), new TypeReference<Object>() {
        }), rs.getInt("retcode"), rs.getBoolean("success"), SqlTime.read(rs, "at"));
    }
}
