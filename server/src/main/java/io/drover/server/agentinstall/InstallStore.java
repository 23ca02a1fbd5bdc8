package io.drover.server.agentinstall;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.Json;
import io.drover.model.agentinstall.AgentInstallHost;
import io.drover.model.agentinstall.AgentInstallStep;
import io.drover.model.agentinstall.AgentInstallTask;
import io.drover.model.agentinstall.InstallStatus;
import io.drover.server.errors.DomainException;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/** Install tasks and their hosts' rows (steps as JSON); never a credential. */
final class InstallStore {
    private static final TypeReference<List<AgentInstallStep>> STEPS = new TypeReference<>() {
    };

    private final Jdbi jdbi;
    private final Clock clock;

    InstallStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** A host as the task creates it. */
    record NewHost(String address, int port, String agentId, String innerIp, Long bkHostId, String prefix) {
    }

    long create(long bizId, String createdBy, String sshUser, String jump, List<String> masters, int concurrency,
                List<NewHost> hosts) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        return jdbi.inTransaction(h -> {
            long id = h.createUpdate("""
                            INSERT INTO agent_install_task (bk_biz_id, status, created_by, ssh_user, jump, masters, concurrency, created_at)
                            VALUES (:biz, 'running', :by, :user, :jump, :masters, :concurrency, :now)""")
                    .bind("biz", bizId).bind("by", createdBy).bind("user", sshUser).bind("jump", jump)
                    .bind("masters", String.join(",", masters)).bind("concurrency", concurrency).bind("now", now)
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
            var batch = h.prepareBatch("""
                    INSERT INTO agent_install_host (task_id, address, port, agent_id, inner_ip, bk_host_id, prefix, status, steps)
                    VALUES (:task, :address, :port, :agent, :ip, :host, :prefix, 'pending', '[]')""");
            for (NewHost host : hosts) {
                batch.bind("task", id).bind("address", host.address()).bind("port", host.port()).bind("agent", host.agentId())
                        .bind("ip", host.innerIp()).bind("host", host.bkHostId()).bind("prefix", host.prefix()).add();
            }
            batch.execute();
            return id;
        });
    }

    /** Puts the failed hosts of a finished task back to pending and the task to running; their ids. */
    List<Long> reopenFailed(long taskId) {
        return jdbi.inTransaction(h -> {
            List<Long> ids = h.createQuery("SELECT id FROM agent_install_host WHERE task_id = :task AND status = 'failed' ORDER BY id")
                    .bind("task", taskId).mapTo(Long.class).list();
            if (!ids.isEmpty()) {
                h.createUpdate("""
                                UPDATE agent_install_host SET status = 'pending', error = NULL, steps = '[]', started_at = NULL,
                                finished_at = NULL WHERE task_id = :task AND status = 'failed'""").bind("task", taskId).execute();
                h.createUpdate("UPDATE agent_install_task SET status = 'running', finished_at = NULL WHERE id = :id")
                        .bind("id", taskId).execute();
            }
            return ids;
        });
    }

    /** Writes a host's row; only that row (a host never changes another's). */
    void saveHost(long hostId, InstallStatus status, String error, String arch, String version, List<AgentInstallStep> steps,
                  OffsetDateTime startedAt, OffsetDateTime finishedAt) {
        String json;
        try {
            json = Json.json().writeValueAsString(steps);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE agent_install_host SET status = :status, error = :error, arch = :arch, version = :version,
                        steps = :steps, started_at = :started, finished_at = :finished WHERE id = :id""")
                .bind("status", status.wire()).bind("error", error).bind("arch", arch).bind("version", version).bind("steps", json)
                .bind("started", startedAt).bind("finished", finishedAt).bind("id", hostId).execute());
    }

    /** Ends a task: failed when any host failed. */
    void finish(long taskId) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE agent_install_task SET finished_at = :now, status = CASE WHEN EXISTS (SELECT 1 FROM agent_install_host
                        WHERE task_id = :id AND status <> 'succeeded') THEN 'failed' ELSE 'succeeded' END WHERE id = :id""")
                .bind("now", OffsetDateTime.now(clock)).bind("id", taskId).execute());
    }

    /** Tasks a stopped server left running: their unfinished hosts failed (credentials are gone with the process). */
    int failInterrupted() {
        return jdbi.inTransaction(h -> {
            h.createUpdate("""
                            UPDATE agent_install_host SET status = 'failed', finished_at = :now,
                            error = 'the server stopped during the install: retry the task with its credentials'
                            WHERE status IN ('pending', 'running')""").bind("now", OffsetDateTime.now(clock)).execute();
            return h.createUpdate("UPDATE agent_install_task SET status = 'failed', finished_at = :now WHERE status = 'running'")
                    .bind("now", OffsetDateTime.now(clock)).execute();
        });
    }

    AgentInstallTask get(long id) {
        AgentInstallTask task = jdbi.withHandle(h -> h.createQuery("SELECT * FROM agent_install_task WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> task(rs, List.of())).findOne()).orElseThrow(() -> DomainException.notFound("agent install", id));
        List<AgentInstallHost> hosts = jdbi.withHandle(h -> h.createQuery(
                "SELECT * FROM agent_install_host WHERE task_id = :id ORDER BY id").bind("id", id).map((rs, ctx) -> host(rs)).list());
        return withHosts(task, hosts);
    }

    /** The newest tasks first, with counts and without hosts. */
    List<AgentInstallTask> list(int limit) {
        return jdbi.withHandle(h -> {
            Map<Long, Map<String, Integer>> counts = new java.util.HashMap<>();
            List<AgentInstallTask> tasks = h.createQuery("SELECT * FROM agent_install_task ORDER BY id DESC LIMIT :limit")
                    .bind("limit", limit).map((rs, ctx) -> task(rs, List.of())).list();
            h.createQuery("SELECT task_id, status, COUNT(*) FROM agent_install_host GROUP BY task_id, status")
                    .map((rs, ctx) -> {
                        counts.computeIfAbsent(rs.getLong(1), k -> new java.util.HashMap<>()).put(rs.getString(2), rs.getInt(3));
                        return 0;
                    }).list();
            List<AgentInstallTask> out = new ArrayList<>();
            for (AgentInstallTask t : tasks) {
                Map<String, Integer> c = counts.getOrDefault(t.id(), Map.of());
                out.add(new AgentInstallTask(t.id(), t.bkBizId(), t.status(), t.createdBy(), t.sshUser(), t.jump(), t.masters(),
                        t.concurrency(), t.createdAt(), t.finishedAt(), c.values().stream().mapToInt(Integer::intValue).sum(),
                        c.getOrDefault(InstallStatus.SUCCEEDED.wire(), 0), c.getOrDefault(InstallStatus.FAILED.wire(), 0), List.of()));
            }
            return out;
        });
    }

    private static AgentInstallTask withHosts(AgentInstallTask t, List<AgentInstallHost> hosts) {
        Map<InstallStatus, Long> by = hosts.stream().collect(Collectors.groupingBy(AgentInstallHost::status, Collectors.counting()));
        return new AgentInstallTask(t.id(), t.bkBizId(), t.status(), t.createdBy(), t.sshUser(), t.jump(), t.masters(),
                t.concurrency(), t.createdAt(), t.finishedAt(), hosts.size(), by.getOrDefault(InstallStatus.SUCCEEDED, 0L).intValue(),
                by.getOrDefault(InstallStatus.FAILED, 0L).intValue(), hosts);
    }

    private static AgentInstallTask task(ResultSet rs, List<AgentInstallHost> hosts) throws SQLException {
        return new AgentInstallTask(rs.getLong("id"), rs.getLong("bk_biz_id"), InstallStatus.ofWire(rs.getString("status")), rs.getString("created_by"),
                rs.getString("ssh_user"), rs.getString("jump"), Arrays.asList(rs.getString("masters").split(",")),
                rs.getInt("concurrency"), SqlTime.read(rs, "created_at"), SqlTime.read(rs, "finished_at"), 0, 0, 0, hosts);
    }

    private static AgentInstallHost host(ResultSet rs) throws SQLException {
        List<AgentInstallStep> steps;
        try {
            steps = Json.json().readValue(rs.getString("steps"), STEPS);
        } catch (JsonProcessingException e) {
            steps = List.of();
        }
        long hostId = rs.getLong("bk_host_id");
        Long bkHostId = rs.wasNull() ? null : hostId;
        return new AgentInstallHost(rs.getLong("id"), rs.getString("address"), rs.getInt("port"), rs.getString("agent_id"),
                rs.getString("inner_ip"), bkHostId, rs.getString("prefix"), InstallStatus.ofWire(rs.getString("status")), rs.getString("error"),
                rs.getString("arch"), rs.getString("version"), SqlTime.read(rs, "started_at"), SqlTime.read(rs, "finished_at"), steps);
    }
}
