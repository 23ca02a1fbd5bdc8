package io.drover.server.agentupgrade;

import io.drover.model.agentupgrade.AgentUpgradeHost;
import io.drover.model.agentupgrade.AgentUpgradeTask;
import io.drover.model.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.UpgradeHostState;
import io.drover.server.errors.DomainException;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/** Upgrade tasks, one row per agent, and the agents of running tasks (one running task per agent). */
final class UpgradeStore {
    private final Jdbi jdbi;
    private final Clock clock;

    UpgradeStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** What a task is created with; {@code batches}: the agent ids of each batch, in order. */
    record NewTask(long bizId, String version, String tgt, String tgtType, int batchSize, double maxFailureRatio,
                   int waitSeconds, boolean allowDowngrade, String createdBy, List<List<String>> batches) {
    }

    /**
     * Creates a running task with its agents, each of them marked busy in the same transaction: 409 when another
     * running task (of this server or another) has one of them.
     */
    long create(NewTask t) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        try {
            return jdbi.inTransaction(h -> {
                long id = h.createUpdate("""
                                INSERT INTO agent_upgrade_task (bk_biz_id, status, version, tgt, tgt_type, batch_size,
                                max_failure_ratio, wait_seconds, allow_downgrade, created_by, created_at) VALUES (:biz, :status,
                                :version, :tgt, :type, :batch, :ratio, :wait, :downgrade, :by, :now)""")
                        .bind("biz", t.bizId()).bind("status", RolloutStatus.RUNNING.wire()).bind("version", t.version())
                        .bind("tgt", t.tgt()).bind("type", t.tgtType()).bind("batch", t.batchSize())
                        .bind("ratio", t.maxFailureRatio()).bind("wait", t.waitSeconds()).bind("downgrade", t.allowDowngrade())
                        .bind("by", t.createdBy()).bind("now", now)
                        .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
                var hosts = h.prepareBatch("INSERT INTO agent_upgrade_host (task_id, agent_id, batch, status) VALUES (:task, :agent, :batch, :status)");
                var busy = h.prepareBatch("INSERT INTO agent_upgrade_busy (agent_id, task_id) VALUES (:agent, :task)");
                for (int b = 0; b < t.batches().size(); b++) {
                    for (String agent : t.batches().get(b)) {
                        hosts.bind("task", id).bind("agent", agent).bind("batch", b + 1).bind("status", UpgradeHostState.PENDING.wire()).add();
                        busy.bind("agent", agent).bind("task", id).add();
                    }
                }
                hosts.execute();
                busy.execute();
                return id;
            });
        } catch (JdbiException e) {
            // the key of agent_upgrade_busy refused a row (how drivers report a failed batch differs): see which
            Set<String> busy = busyAgents();
            if (t.batches().stream().flatMap(List::stream).anyMatch(busy::contains)) {
                throw DomainException.conflict("upgrade_running", "an agent of the target is in an upgrade that is still "
                        + "running (started meanwhile): wait for its end, or cancel it");
            }
            throw e;
        }
    }

    /** What one agent's row says now. */
    record HostRow(String arch, String fromVersion, String version, UpgradeHostState state, String error, String log,
                   OffsetDateTime startedAt, OffsetDateTime finishedAt) {
    }

    /** Writes an agent's row; only that row. */
    void saveHost(long taskId, String agentId, HostRow r) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE agent_upgrade_host SET arch = :arch, from_version = :from, version = :version, status = :status,
                        error = :error, log = :log, started_at = :started, finished_at = :finished
                        WHERE task_id = :task AND agent_id = :agent""")
                .bind("arch", r.arch()).bind("from", r.fromVersion()).bind("version", r.version()).bind("status", r.state().wire())
                .bind("error", r.error()).bind("log", r.log()).bind("started", r.startedAt()).bind("finished", r.finishedAt())
                .bind("task", taskId).bind("agent", agentId).execute());
    }

    /**
     * Ends a task still running: its pending agents (left by a stop) not started, its agents free for another upgrade.
     * A task another server failed meanwhile (this one lost its lease) keeps that end.
     */
    void finish(long taskId, RolloutStatus status) {
        jdbi.useTransaction(h -> {
            int ended = h.createUpdate("UPDATE agent_upgrade_task SET status = :status, finished_at = :now WHERE id = :id AND status = :running")
                    .bind("status", status.wire()).bind("now", OffsetDateTime.now(clock)).bind("id", taskId)
                    .bind("running", RolloutStatus.RUNNING.wire()).execute();
            if (ended == 1) {
                h.createUpdate("UPDATE agent_upgrade_host SET status = :not WHERE task_id = :id AND status = :pending")
                        .bind("not", UpgradeHostState.NOT_STARTED.wire()).bind("pending", UpgradeHostState.PENDING.wire()).bind("id", taskId).execute();
            }
            h.createUpdate("DELETE FROM agent_upgrade_busy WHERE task_id = :id").bind("id", taskId).execute();
        });
    }

    /**
     * Fails tasks whose server stopped (this one before a restart, or another of the cluster whose lease ran out): the
     * agents it had started on failed (whether they came back with the version is not known here), those it had not
     * reached were not started, and the agents are free. Answers how many were still running.
     */
    int failAbandoned(List<Long> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        return jdbi.inTransaction(h -> {
            int failed = h.createUpdate("""
                            UPDATE agent_upgrade_task SET status = :failed, finished_at = :now
                            WHERE id IN (<ids>) AND status = :running""")
                    .bind("failed", RolloutStatus.FAILED.wire()).bind("running", RolloutStatus.RUNNING.wire()).bind("now", now)
                    .bindList("ids", ids).execute();
            h.createUpdate("""
                            UPDATE agent_upgrade_host SET status = :failed, finished_at = :now,
                            error = 'the server running the upgrade stopped while this agent was upgraded: see its version in drover agent list'
                            WHERE task_id IN (<ids>) AND (status = :handed OR (status = :pending AND started_at IS NOT NULL))""")
                    .bind("failed", UpgradeHostState.FAILED.wire()).bind("handed", UpgradeHostState.HANDED_OVER.wire())
                    .bind("pending", UpgradeHostState.PENDING.wire()).bind("now", now).bindList("ids", ids).execute();
            h.createUpdate("UPDATE agent_upgrade_host SET status = :not WHERE task_id IN (<ids>) AND status = :pending")
                    .bind("not", UpgradeHostState.NOT_STARTED.wire()).bind("pending", UpgradeHostState.PENDING.wire()).bindList("ids", ids).execute();
            h.createUpdate("DELETE FROM agent_upgrade_busy WHERE task_id IN (<ids>)").bindList("ids", ids).execute();
            return failed;
        });
    }

    /** Asks a running task to start no further batch; false when it is not running. */
    boolean requestCancel(long taskId) {
        return jdbi.withHandle(h -> h.createUpdate("UPDATE agent_upgrade_task SET cancel_requested = TRUE WHERE id = :id AND status = :running")
                .bind("id", taskId).bind("running", RolloutStatus.RUNNING.wire()).execute()) == 1;
    }

    boolean cancelRequested(long taskId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT cancel_requested FROM agent_upgrade_task WHERE id = :id").bind("id", taskId)
                .mapTo(Boolean.class).findOne().orElse(false));
    }

    /** The agents of running tasks, which another upgrade may not take. */
    Set<String> busyAgents() {
        return jdbi.withHandle(h -> new HashSet<>(h.createQuery("SELECT agent_id FROM agent_upgrade_busy").mapTo(String.class).list()));
    }

    AgentUpgradeTask get(long id) {
        AgentUpgradeTask task = jdbi.withHandle(h -> h.createQuery("SELECT * FROM agent_upgrade_task WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> task(rs)).findOne()).orElseThrow(() -> DomainException.notFound("agent upgrade", id));
        List<AgentUpgradeHost> hosts = jdbi.withHandle(h -> h.createQuery(
                "SELECT * FROM agent_upgrade_host WHERE task_id = :id ORDER BY batch, id").bind("id", id).map((rs, ctx) -> host(rs)).list());
        Map<String, Integer> counts = hosts.stream().collect(Collectors.groupingBy(host -> host.status().wire(),
                Collectors.summingInt(x -> 1)));
        return withCounts(task, counts, hosts);
    }

    /** The newest {@code limit} tasks of these businesses (null: every business) first, with counts and without hosts. */
    List<AgentUpgradeTask> list(List<Long> businesses, int limit) {
        if (businesses != null && businesses.isEmpty()) {
            return List.of();
        }
        return jdbi.withHandle(h -> {
            var query = h.createQuery("SELECT * FROM agent_upgrade_task" + (businesses == null ? "" : " WHERE bk_biz_id IN (<biz>)")
                    + " ORDER BY id DESC LIMIT :limit").bind("limit", limit);
            if (businesses != null) {
                query.bindList("biz", businesses);
            }
            List<AgentUpgradeTask> tasks = query.map((rs, ctx) -> task(rs)).list();
            if (tasks.isEmpty()) {
                return List.of();
            }
            Map<Long, Map<String, Integer>> counts = new HashMap<>();
            h.createQuery("SELECT task_id, status, COUNT(*) FROM agent_upgrade_host WHERE task_id IN (<ids>) GROUP BY task_id, status")
                    .bindList("ids", tasks.stream().map(AgentUpgradeTask::id).toList())
                    .map((rs, ctx) -> counts.computeIfAbsent(rs.getLong(1), k -> new HashMap<>()).put(rs.getString(2), rs.getInt(3)))
                    .list();
            List<AgentUpgradeTask> out = new ArrayList<>();
            for (AgentUpgradeTask t : tasks) {
                out.add(withCounts(t, counts.getOrDefault(t.id(), Map.of()), List.of()));
            }
            return out;
        });
    }

    private static AgentUpgradeTask withCounts(AgentUpgradeTask t, Map<String, Integer> c, List<AgentUpgradeHost> hosts) {
        return new AgentUpgradeTask(t.id(), t.bkBizId(), t.status(), t.version(), t.tgt(), t.tgtType(), t.batchSize(),
                t.maxFailureRatio(), t.waitSeconds(), t.allowDowngrade(), t.createdBy(), t.createdAt(), t.finishedAt(),
                c.values().stream().mapToInt(Integer::intValue).sum(), c.getOrDefault(UpgradeHostState.SUCCEEDED.wire(), 0),
                c.getOrDefault(UpgradeHostState.SKIPPED.wire(), 0), c.getOrDefault(UpgradeHostState.FAILED.wire(), 0),
                c.getOrDefault(UpgradeHostState.NOT_STARTED.wire(), 0), hosts);
    }

    private static AgentUpgradeTask task(ResultSet rs) throws SQLException {
        return new AgentUpgradeTask(rs.getLong("id"), rs.getLong("bk_biz_id"), RolloutStatus.ofWire(rs.getString("status")), rs.getString("version"),
                rs.getString("tgt"), rs.getString("tgt_type"), rs.getInt("batch_size"), rs.getDouble("max_failure_ratio"),
                rs.getInt("wait_seconds"), rs.getBoolean("allow_downgrade"), rs.getString("created_by"), SqlTime.read(rs, "created_at"),
                SqlTime.read(rs, "finished_at"), 0, 0, 0, 0, 0, List.of());
    }

    private static AgentUpgradeHost host(ResultSet rs) throws SQLException {
        return new AgentUpgradeHost(rs.getLong("id"), rs.getString("agent_id"), rs.getInt("batch"), rs.getString("arch"),
                rs.getString("from_version"), rs.getString("version"), UpgradeHostState.ofWire(rs.getString("status")), rs.getString("error"),
                rs.getString("log"), SqlTime.read(rs, "started_at"), SqlTime.read(rs, "finished_at"));
    }
}
