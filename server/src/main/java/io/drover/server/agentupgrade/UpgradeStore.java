package io.drover.server.agentupgrade;

import io.drover.core.agentupgrade.HostState;
import io.drover.core.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.AgentUpgradeHost;
import io.drover.model.agentupgrade.AgentUpgradeTask;
import io.drover.server.errors.DomainException;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/** Upgrade tasks and one row per agent. */
final class UpgradeStore {
    private final Jdbi jdbi;
    private final Clock clock;

    UpgradeStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** What a task is created with; {@code batches}: the agent ids of each batch, in order. */
    record NewTask(long bizId, String version, String tgt, String tgtType, int batchSize, double maxFailureRatio,
                   int waitSeconds, String createdBy, List<List<String>> batches) {
    }

    long create(NewTask t) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        return jdbi.inTransaction(h -> {
            long id = h.createUpdate("""
                            INSERT INTO agent_upgrade_task (bk_biz_id, status, version, tgt, tgt_type, batch_size, max_failure_ratio,
                            wait_seconds, created_by, created_at) VALUES (:biz, :status, :version, :tgt, :type, :batch, :ratio,
                            :wait, :by, :now)""")
                    .bind("biz", t.bizId()).bind("status", RolloutStatus.RUNNING.wire()).bind("version", t.version())
                    .bind("tgt", t.tgt()).bind("type", t.tgtType()).bind("batch", t.batchSize())
                    .bind("ratio", t.maxFailureRatio()).bind("wait", t.waitSeconds()).bind("by", t.createdBy()).bind("now", now)
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
            var batch = h.prepareBatch("INSERT INTO agent_upgrade_host (task_id, agent_id, batch, status) VALUES (:task, :agent, :batch, :status)");
            for (int b = 0; b < t.batches().size(); b++) {
                for (String agent : t.batches().get(b)) {
                    batch.bind("task", id).bind("agent", agent).bind("batch", b + 1).bind("status", HostState.PENDING.wire()).add();
                }
            }
            batch.execute();
            return id;
        });
    }

    /** What one agent's row says now. */
    record HostRow(String arch, String fromVersion, String version, HostState state, String error, String log,
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

    /** Ends a task: its pending agents (left by a stop) not started. */
    void finish(long taskId, RolloutStatus status) {
        jdbi.useTransaction(h -> {
            h.createUpdate("UPDATE agent_upgrade_host SET status = :not WHERE task_id = :id AND status = :pending")
                    .bind("not", HostState.NOT_STARTED.wire()).bind("pending", HostState.PENDING.wire()).bind("id", taskId).execute();
            h.createUpdate("UPDATE agent_upgrade_task SET status = :status, finished_at = :now WHERE id = :id")
                    .bind("status", status.wire()).bind("now", OffsetDateTime.now(clock)).bind("id", taskId).execute();
        });
    }

    /**
     * Tasks a stopped server left running: the agents it was waiting for failed (whether they came back with the
     * version is not known here), those it had not reached were not started, and the task failed.
     */
    int failInterrupted() {
        OffsetDateTime now = OffsetDateTime.now(clock);
        return jdbi.inTransaction(h -> {
            h.createUpdate("""
                            UPDATE agent_upgrade_host SET status = :failed, finished_at = :now,
                            error = 'the server stopped while this agent was upgraded: see its version in drover agent list'
                            WHERE status = :handed AND task_id IN (SELECT id FROM agent_upgrade_task WHERE status = :running)""")
                    .bind("failed", HostState.FAILED.wire()).bind("handed", HostState.HANDED_OVER.wire())
                    .bind("running", RolloutStatus.RUNNING.wire()).bind("now", now).execute();
            h.createUpdate("""
                            UPDATE agent_upgrade_host SET status = :not WHERE status = :pending
                            AND task_id IN (SELECT id FROM agent_upgrade_task WHERE status = :running)""")
                    .bind("not", HostState.NOT_STARTED.wire()).bind("pending", HostState.PENDING.wire())
                    .bind("running", RolloutStatus.RUNNING.wire()).execute();
            return h.createUpdate("UPDATE agent_upgrade_task SET status = :failed, finished_at = :now WHERE status = :running")
                    .bind("failed", RolloutStatus.FAILED.wire()).bind("running", RolloutStatus.RUNNING.wire()).bind("now", now)
                    .execute();
        });
    }

    /** The agents of running tasks, which another upgrade may not take. */
    List<String> agentsOfRunningTasks() {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT DISTINCT h.agent_id FROM agent_upgrade_host h JOIN agent_upgrade_task t ON t.id = h.task_id
                        WHERE t.status = :running""").bind("running", RolloutStatus.RUNNING.wire()).mapTo(String.class).list());
    }

    AgentUpgradeTask get(long id) {
        AgentUpgradeTask task = jdbi.withHandle(h -> h.createQuery("SELECT * FROM agent_upgrade_task WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> task(rs)).findOne()).orElseThrow(() -> DomainException.notFound("agent upgrade", id));
        List<AgentUpgradeHost> hosts = jdbi.withHandle(h -> h.createQuery(
                "SELECT * FROM agent_upgrade_host WHERE task_id = :id ORDER BY batch, id").bind("id", id).map((rs, ctx) -> host(rs)).list());
        Map<String, Integer> counts = hosts.stream().collect(Collectors.groupingBy(AgentUpgradeHost::status,
                Collectors.summingInt(x -> 1)));
        return withCounts(task, counts, hosts);
    }

    /** The newest tasks first, with counts and without hosts. */
    List<AgentUpgradeTask> list(int limit) {
        return jdbi.withHandle(h -> {
            List<AgentUpgradeTask> tasks = h.createQuery("SELECT * FROM agent_upgrade_task ORDER BY id DESC LIMIT :limit")
                    .bind("limit", limit).map((rs, ctx) -> task(rs)).list();
            Map<Long, Map<String, Integer>> counts = new HashMap<>();
            h.createQuery("SELECT task_id, status, COUNT(*) FROM agent_upgrade_host GROUP BY task_id, status")
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
                t.maxFailureRatio(), t.waitSeconds(), t.createdBy(), t.createdAt(), t.finishedAt(),
                c.values().stream().mapToInt(Integer::intValue).sum(), c.getOrDefault(HostState.SUCCEEDED.wire(), 0),
                c.getOrDefault(HostState.SKIPPED.wire(), 0), c.getOrDefault(HostState.FAILED.wire(), 0),
                c.getOrDefault(HostState.NOT_STARTED.wire(), 0), hosts);
    }

    private static AgentUpgradeTask task(ResultSet rs) throws SQLException {
        return new AgentUpgradeTask(rs.getLong("id"), rs.getLong("bk_biz_id"), rs.getString("status"), rs.getString("version"),
                rs.getString("tgt"), rs.getString("tgt_type"), rs.getInt("batch_size"), rs.getDouble("max_failure_ratio"),
                rs.getInt("wait_seconds"), rs.getString("created_by"), SqlTime.read(rs, "created_at"),
                SqlTime.read(rs, "finished_at"), 0, 0, 0, 0, 0, List.of());
    }

    private static AgentUpgradeHost host(ResultSet rs) throws SQLException {
        return new AgentUpgradeHost(rs.getLong("id"), rs.getString("agent_id"), rs.getInt("batch"), rs.getString("arch"),
                rs.getString("from_version"), rs.getString("version"), rs.getString("status"), rs.getString("error"),
                rs.getString("log"), SqlTime.read(rs, "started_at"), SqlTime.read(rs, "finished_at"));
    }
}
