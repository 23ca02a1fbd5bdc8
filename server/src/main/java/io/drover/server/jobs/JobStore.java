package io.drover.server.jobs;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.jobs.AgentJob;
import io.drover.model.jobs.AgentJobState;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobSummary;
import io.drover.server.store.Dialect;
import io.drover.server.store.JdbcBatch;
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
final class JobStore {
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };
    private static final TypeReference<List<Object>> LIST = new TypeReference<>() {
    };
    private static final TypeReference<Object> RETURN = new TypeReference<>() {
    };
    private final Clock clock;

    JobStore(Clock clock) {
        this.clock = clock;
    }

    /** One return to store; {@code killed}: the agent stopped the job on a cancel (its state stays CANCELLED). */
    record ReturnRow(String jid, String agentId, String retJson, int retcode, boolean success, boolean killed) {
    }

    /** The states an agent may still leave: a later fact about the job replaces them. */
    private static final List<String> OPEN = java.util.Arrays.stream(AgentJobState.values()).filter(AgentJobState::open)
            .map(Enum::name).toList();

    /**
     * {@code arg} as it may be shown; {@code sealedArg} what the agents are sent, sealed (null: the same as arg);
     * {@code timeoutAt} when agents that have not returned are recorded TIMED_OUT (null: never). Every agent is
     * recorded PUBLISHED.
     */
    void insertJob(Handle h, String jid, String fun, List<Object> arg, String sealedArg, String tgt, String type,
                   List<String> minions, String actor, OffsetDateTime timeoutAt) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        h.createUpdate("""
                        INSERT INTO job (jid, fun, arg, sealed_arg, tgt, tgt_type, minions, actor, created_at, timeout_at)
                        VALUES (:jid, :fun, :arg, :sealed, :tgt, :type, :minions, :actor, :now, :timeout)""")
                .bind("jid", jid).bind("fun", fun).bind("arg", Sql.toJson(arg)).bind("sealed", sealedArg).bind("tgt", tgt)
                .bind("type", type).bind("minions", Sql.toJson(minions)).bind("actor", actor)
                .bind("now", now).bind("timeout", timeoutAt).execute();
        Object at = JdbcBatch.time(h, now);
        String published = AgentJobState.PUBLISHED.name();
        JdbcBatch.run(h, "INSERT INTO job_agent (jid, minion_id, state, state_at) VALUES (?, ?, ?, ?)", minions, (statement, id) -> {
            statement.setString(1, jid);
            statement.setString(2, id);
            statement.setString(3, published);
            statement.setObject(4, at);
        });
    }

    /** Records {@code state} for one agent of a job if it is now in one of {@code from}; whether it was. */
    boolean advance(Handle h, String jid, String agentId, AgentJobState state, List<AgentJobState> from) {
        return h.createUpdate("""
                        UPDATE job_agent SET state = :state, state_at = :now
                        WHERE jid = :jid AND minion_id = :id AND state IN (<from>)""")
                .bind("state", state.name()).bind("now", OffsetDateTime.now(clock)).bind("jid", jid).bind("id", agentId)
                .bindList("from", from.stream().map(Enum::name).toList()).execute() > 0;
    }

    /**
     * The agents of a job (those of {@code targets}, or all when null) that may still be working on it, recorded
     * CANCELLED; answers their ids.
     */
    List<String> cancel(Handle h, String jid, List<String> targets) {
        String only = targets == null ? "" : " AND minion_id IN (<targets>)";
        var select = h.createQuery("SELECT minion_id FROM job_agent WHERE jid = :jid AND state IN (<open>)" + only
                + " ORDER BY minion_id").bind("jid", jid).bindList("open", OPEN);
        var update = h.createUpdate("UPDATE job_agent SET state = :state, state_at = :now WHERE jid = :jid AND state IN (<open>)"
                + only).bind("state", AgentJobState.CANCELLED.name()).bind("now", OffsetDateTime.now(clock)).bind("jid", jid)
                .bindList("open", OPEN);
        if (targets != null) {
            select.bindList("targets", targets);
            update.bindList("targets", targets);
        }
        List<String> ids = select.mapTo(String.class).list();
        update.execute();
        return ids;
    }

    /**
     * Agents of jobs whose timeout passed after {@code since} and by {@code now} that have neither returned nor
     * stopped: TIMED_OUT. Each job is swept once (the caller moves {@code since} on): a later report cannot move an
     * agent back to a waiting state.
     */
    int recordTimeouts(Handle h, OffsetDateTime since, OffsetDateTime now) {
        return h.createUpdate("""
                        UPDATE job_agent SET state = :state, state_at = :now
                        WHERE state IN (<waiting>) AND jid IN (SELECT jid FROM job WHERE timeout_at <= :now AND timeout_at > :since)""")
                .bind("state", AgentJobState.TIMED_OUT.name()).bind("now", now).bind("since", since)
                .bindList("waiting", List.of(AgentJobState.PUBLISHED.name(), AgentJobState.RECEIVED.name(), AgentJobState.RUNNING.name()))
                .execute();
    }

    /** An agent went offline: its jobs since {@code since} that it had not finished are AGENT_LOST. */
    int recordLost(Handle h, String agentId, OffsetDateTime since) {
        return h.createUpdate("""
                        UPDATE job_agent SET state = :state, state_at = :now
                        WHERE minion_id = :id AND state IN (<waiting>) AND jid IN (SELECT jid FROM job WHERE created_at > :since)""")
                .bind("state", AgentJobState.AGENT_LOST.name()).bind("now", OffsetDateTime.now(clock)).bind("id", agentId)
                .bind("since", since)
                .bindList("waiting", List.of(AgentJobState.PUBLISHED.name(), AgentJobState.RECEIVED.name(), AgentJobState.RUNNING.name()))
                .execute();
    }

    /**
     * How stored returns are read: as values for the server to work with, or as the JSON they are stored as, which an
     * API answer writes out without parsing and encoding each return again (a job to 8,000 agents: 8,000 of each).
     */
    enum ReturnForm {
        VALUES, STORED_JSON
    }

    /** Up to {@code limit} agents of a job after {@code after} (null: from the first) in id order, with their returns. */
    List<AgentJob> page(Handle h, String jid, String after, int limit, ReturnForm form) {
        return h.createQuery("""
                        SELECT minion_id, state, state_at, ret, retcode, success, returned_at FROM job_agent
                        WHERE jid = :jid AND minion_id > :after ORDER BY minion_id LIMIT :limit""")
                .bind("jid", jid).bind("after", after == null ? "" : after).bind("limit", limit)
                .map((rs, ctx) -> new AgentJob(rs.getString(1), AgentJobState.valueOf(rs.getString(2)), SqlTime.read(rs, "state_at"),
                        rs.getString("returned_at") == null ? null : storedReturn(rs, form))).list();
    }

    /** How many agents of each job are in each state. */
    Map<String, Map<AgentJobState, Integer>> counts(Handle h, Collection<String> jids) {
        Map<String, Map<AgentJobState, Integer>> counts = new HashMap<>();
        if (jids.isEmpty()) {
            return counts;
        }
        h.createQuery("SELECT jid, state, COUNT(*) FROM job_agent WHERE jid IN (<jids>) GROUP BY jid, state")
                .bindList("jids", List.copyOf(jids))
                .map((rs, ctx) -> counts.computeIfAbsent(rs.getString(1), j -> new java.util.EnumMap<>(AgentJobState.class))
                        .put(AgentJobState.valueOf(rs.getString(2)), rs.getInt(3))).forEach(ignored -> { });
        return counts;
    }

    /** A job of the list, with the minions it targeted (for the business check). */
    record Listed(JobSummary summary, List<String> minions) {
    }

    /** Up to {@code limit} jobs older than {@code before} (null: the newest), newest first. */
    List<Listed> list(Handle h, String before, int limit) {
        List<Listed> jobs = h.createQuery("SELECT jid, fun, tgt, tgt_type, actor, created_at, minions FROM job"
                        + (before == null ? "" : " WHERE jid < :before") + " ORDER BY jid DESC LIMIT :limit")
                .bind("before", before).bind("limit", limit)
                .map((rs, ctx) -> {
                    List<String> minions = Sql.fromJson(rs.getString("minions"), STRINGS);
                    return new Listed(new JobSummary(rs.getString("jid"), rs.getString("fun"), rs.getString("tgt"),
                            rs.getString("tgt_type"), rs.getString("actor"), SqlTime.read(rs, "created_at"), minions.size(),
                            Map.of()), minions);
                }).list();
        Map<String, Map<AgentJobState, Integer>> counts = counts(h, jobs.stream().map(j -> j.summary().jid()).toList());
        return jobs.stream().map(j -> new Listed(new JobSummary(j.summary().jid(), j.summary().fun(), j.summary().tgt(),
                j.summary().tgtType(), j.summary().actor(), j.summary().createdAt(), j.summary().agents(),
                counts.getOrDefault(j.summary().jid(), Map.of())), j.minions())).toList();
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
        h.createQuery("SELECT jid, minion_id FROM job_agent WHERE jid IN (<jids>) AND returned_at IS NOT NULL")
                .bindList("jids", List.copyOf(jids))
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

    /**
     * Stores each return on its agent's row of the job, with the state it leaves the agent in. The return is the last
     * fact: a job that finished before a cancel reached it is RETURNED, a killed one CANCELLED. An agent's first return
     * is kept; a row that already holds one is left as it is.
     */
    void insertReturns(Handle h, List<ReturnRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        if (Dialect.of(h) == Dialect.POSTGRESQL) {
            // One statement for the batch: PostgreSQL's driver sends a batch of updates as one execution per row, which
            // cost a cluster's database more than the returns themselves.
            int n = rows.size();
            String[] jids = new String[n];
            String[] ids = new String[n];
            String[] states = new String[n];
            String[] rets = new String[n];
            Integer[] retcodes = new Integer[n];
            Boolean[] successes = new Boolean[n];
            for (int i = 0; i < n; i++) {
                ReturnRow r = rows.get(i);
                jids[i] = r.jid();
                ids[i] = r.agentId();
                states[i] = state(r).name();
                rets[i] = r.retJson();
                retcodes[i] = r.retcode();
                successes[i] = r.success();
            }
            h.createUpdate("""
                            UPDATE job_agent a SET state = u.state, state_at = :now, ret = u.ret, retcode = u.retcode,
                            success = u.success, returned_at = :now
                            FROM unnest(:jids, :ids, :states, :rets, :retcodes, :successes)
                                 AS u(jid, minion_id, state, ret, retcode, success)
                            WHERE a.jid = u.jid AND a.minion_id = u.minion_id AND a.returned_at IS NULL""")
                    .bindArray("jids", String.class, (Object[]) jids).bindArray("ids", String.class, (Object[]) ids)
                    .bindArray("states", String.class, (Object[]) states).bindArray("rets", String.class, (Object[]) rets)
                    .bindArray("retcodes", Integer.class, (Object[]) retcodes)
                    .bindArray("successes", Boolean.class, (Object[]) successes).bind("now", now).execute();
            return;
        }
        String at = SqlTime.format(now);
        JdbcBatch.run(h, """
                UPDATE job_agent SET state = ?, state_at = ?, ret = ?, retcode = ?, success = ?, returned_at = ?
                WHERE jid = ? AND minion_id = ? AND returned_at IS NULL""", rows, (statement, r) -> {
            statement.setString(1, state(r).name());
            statement.setString(2, at);
            statement.setString(3, r.retJson());
            statement.setInt(4, r.retcode());
            statement.setBoolean(5, r.success());
            statement.setString(6, at);
            statement.setString(7, r.jid());
            statement.setString(8, r.agentId());
        });
    }

    private static AgentJobState state(ReturnRow r) {
        return r.killed() ? AgentJobState.CANCELLED : AgentJobState.RETURNED;
    }

    /** The job with its returns and the minions still missing. */
    Optional<JobResult> find(Handle h, String jid) {
        return find(h, jid, ReturnForm.VALUES);
    }

    Optional<JobResult> find(Handle h, String jid, ReturnForm form) {
        Optional<JobResult> job = h.createQuery("SELECT * FROM job WHERE jid = :jid").bind("jid", jid)
                .map((rs, ctx) -> new JobResult(rs.getString("jid"), rs.getString("fun"),
                        Sql.fromJson(rs.getString("arg"), LIST), rs.getString("tgt"), rs.getString("tgt_type"),
                        Sql.fromJson(rs.getString("minions"), STRINGS), List.of(),
                        SqlTime.read(rs, "created_at"), Map.of(), Map.of(), Map.of())).findOne();
        if (job.isEmpty()) {
            return job;
        }
        JobResult found = job.get();
        // one read of the job's rows gives each agent's state and the returns, which are shown in the order they came
        Map<String, AgentJobState> states = new LinkedHashMap<>();
        List<Map.Entry<String, JobResult.Return>> answered = new java.util.ArrayList<>();
        h.createQuery("""
                        SELECT minion_id, state, ret, retcode, success, returned_at FROM job_agent WHERE jid = :jid
                        ORDER BY minion_id""").bind("jid", jid)
                .map((rs, ctx) -> {
                    states.put(rs.getString(1), AgentJobState.valueOf(rs.getString(2)));
                    if (rs.getString("returned_at") != null) {
                        answered.add(Map.entry(rs.getString(1), storedReturn(rs, form)));
                    }
                    return null;
                }).forEach(ignored -> { });
        answered.sort(java.util.Comparator.comparing((Map.Entry<String, JobResult.Return> e) -> e.getValue().at()));
        Map<String, JobResult.Return> returns = new LinkedHashMap<>();
        answered.forEach(e -> returns.put(e.getKey(), e.getValue()));
        List<String> missing = found.minions().stream().filter(id -> !returns.containsKey(id)).toList();
        Map<AgentJobState, Integer> counts = new java.util.EnumMap<>(AgentJobState.class);
        states.values().forEach(state -> counts.merge(state, 1, Integer::sum));
        return Optional.of(new JobResult(found.jid(), found.fun(), found.arg(), found.tgt(), found.tgtType(),
                found.minions(), missing, found.createdAt(), returns, states, counts));
    }

    boolean exists(Handle h, String jid) {
        return h.createQuery("SELECT COUNT(*) FROM job WHERE jid = :jid").bind("jid", jid).mapTo(Integer.class).one() > 0;
    }

    /** The minions a job targeted; empty when there is no such job. */
    Optional<List<String>> minions(Handle h, String jid) {
        return h.createQuery("SELECT minions FROM job WHERE jid = :jid").bind("jid", jid)
                .map((rs, ctx) -> Sql.fromJson(rs.getString(1), STRINGS)).findOne();
    }

    /** One minion's return to a job, if it is stored. */
    Optional<JobResult.Return> findReturn(Handle h, String jid, String agentId) {
        return h.createQuery("""
                        SELECT ret, retcode, success, returned_at FROM job_agent
                        WHERE jid = :jid AND minion_id = :minion AND returned_at IS NOT NULL""").bind("jid", jid)
                .bind("minion", agentId).map((rs, ctx) -> storedReturn(rs, ReturnForm.VALUES)).findOne();
    }

    private static JobResult.Return storedReturn(ResultSet rs, ReturnForm form) throws SQLException {
        String json = rs.getString("ret");
        // RawValue: Jackson writes it out as the JSON text it holds
        Object ret = form == ReturnForm.STORED_JSON ? new com.fasterxml.jackson.databind.util.RawValue(json)
                : Sql.fromJson(json, RETURN);
        return new JobResult.Return(ret, rs.getInt("retcode"), rs.getBoolean("success"), SqlTime.read(rs, "returned_at"));
    }
}
