package io.drover.server.subscriptions;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.subscriptions.ChangePlanner.Copy;
import io.drover.model.subscriptions.CopyStatus;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * What subscriptions have deployed, one row per copy (subscription, instance, step, host), written only after the
 * step that made it succeeded; and the ports copies hold, one row per (host, port).
 */
public final class DeploymentStore {
    private static final TypeReference<Map<String, String>> FILES = new TypeReference<>() {
    };

    /** One deployed copy with everything the pipelines and status views need. */
    public record Row(long subscriptionId, String instanceId, String stepId, long hostId, long bizId, String plugin,
                      String groupId, String version, CopyStatus status, Map<String, String> files, Integer port,
                      OffsetDateTime updatedAt) {
        public Copy copy() {
            return new Copy(hostId, version, status, files);
        }
    }

    private final Jdbi jdbi;
    private final Clock clock;

    public DeploymentStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public List<Row> of(long subscriptionId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM deployment WHERE subscription_id = :sub")
                .bind("sub", subscriptionId).map((rs, ctx) -> new Row(rs.getLong("subscription_id"), rs.getString("instance_id"),
                        rs.getString("step_id"), rs.getLong("bk_host_id"), rs.getLong("bk_biz_id"), rs.getString("plugin"),
                        rs.getString("group_id"), rs.getString("version"), CopyStatus.valueOf(rs.getString("status")),
                        Sql.fromJson(rs.getString("files"), FILES), Sql.nullableInt(rs, "port"),
                        SqlTime.read(rs, "updated_at"))).list());
    }

    public List<Row> ofHost(long hostId) {
        List<Long> subs = jdbi.withHandle(h -> h.createQuery("SELECT DISTINCT subscription_id FROM deployment WHERE bk_host_id = :host")
                .bind("host", hostId).mapTo(Long.class).list());
        return subs.stream().flatMap(s -> of(s).stream()).filter(r -> r.hostId() == hostId).toList();
    }

    /** instance → step → copies, as the planner takes them. */
    public static Map<String, Map<String, List<Copy>>> byInstance(List<Row> rows) {
        Map<String, Map<String, List<Copy>>> out = new HashMap<>();
        for (Row r : rows) {
            out.computeIfAbsent(r.instanceId(), k -> new HashMap<>())
                    .computeIfAbsent(r.stepId(), k -> new java.util.ArrayList<>()).add(r.copy());
        }
        return out;
    }

    public void save(Row r) {
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM deployment WHERE subscription_id = :sub AND instance_id = :instance AND step_id = :step "
                            + "AND bk_host_id = :host").bind("sub", r.subscriptionId()).bind("instance", r.instanceId())
                    .bind("step", r.stepId()).bind("host", r.hostId()).execute();
            h.createUpdate("""
                            INSERT INTO deployment (subscription_id, instance_id, step_id, bk_host_id, bk_biz_id, plugin, group_id,
                                                    version, status, files, port, updated_at)
                            VALUES (:sub, :instance, :step, :host, :biz, :plugin, :group, :version, :status, :files, :port, :now)""")
                    .bind("sub", r.subscriptionId()).bind("instance", r.instanceId()).bind("step", r.stepId())
                    .bind("host", r.hostId()).bind("biz", r.bizId()).bind("plugin", r.plugin()).bind("group", r.groupId())
                    .bind("version", r.version()).bind("status", r.status().name()).bind("files", Sql.toJson(r.files()))
                    .bind("port", r.port()).bind("now", OffsetDateTime.now(clock)).execute();
        });
    }

    public void setStatus(long sub, String instance, String step, long host, CopyStatus status) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE deployment SET status = :status, updated_at = :now WHERE subscription_id = :sub "
                        + "AND instance_id = :instance AND step_id = :step AND bk_host_id = :host")
                .bind("status", status.name()).bind("now", OffsetDateTime.now(clock)).bind("sub", sub).bind("instance", instance)
                .bind("step", step).bind("host", host).execute());
    }

    /** Removes a copy and releases its port. */
    public void remove(long sub, String instance, String step, long host) {
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM deployment WHERE subscription_id = :sub AND instance_id = :instance AND step_id = :step "
                    + "AND bk_host_id = :host").bind("sub", sub).bind("instance", instance).bind("step", step).bind("host", host).execute();
            h.createUpdate("DELETE FROM port_allocation WHERE subscription_id = :sub AND instance_id = :instance AND step_id = :step "
                    + "AND bk_host_id = :host").bind("sub", sub).bind("instance", instance).bind("step", step).bind("host", host).execute();
        });
    }

    /** The port a copy holds, if any. */
    public Optional<Integer> heldPort(long sub, String instance, String step, long host) {
        return jdbi.withHandle(h -> h.createQuery("SELECT port FROM port_allocation WHERE subscription_id = :sub "
                        + "AND instance_id = :instance AND step_id = :step AND bk_host_id = :host")
                .bind("sub", sub).bind("instance", instance).bind("step", step).bind("host", host).mapTo(Integer.class).findOne());
    }

    /**
     * Allocates the first port of {@code candidates} that is neither in {@code used} (listening on the host) nor
     * registered for the host in the database; the (host, port) key settles races between servers or tasks.
     */
    public Optional<Integer> allocate(long sub, String instance, String step, long host, List<Integer> candidates, Set<Integer> used) {
        Optional<Integer> held = heldPort(sub, instance, step, host);
        if (held.isPresent()) {
            return held;
        }
        Set<Integer> registered = new HashSet<>(jdbi.withHandle(h -> h.createQuery(
                "SELECT port FROM port_allocation WHERE bk_host_id = :host").bind("host", host).mapTo(Integer.class).list()));
        for (int port : candidates) {
            if (used.contains(port) || registered.contains(port)) {
                continue;
            }
            try {
                jdbi.useHandle(h -> h.createUpdate("""
                                INSERT INTO port_allocation (bk_host_id, port, subscription_id, instance_id, step_id, allocated_at)
                                VALUES (:host, :port, :sub, :instance, :step, :now)""")
                        .bind("host", host).bind("port", port).bind("sub", sub).bind("instance", instance).bind("step", step)
                        .bind("now", OffsetDateTime.now(clock)).execute());
                return Optional.of(port);
            } catch (RuntimeException e) {
                if (Sql.violatedConstraint(e).isEmpty()) {
                    throw e;
                }
                // another allocation took this port first: try the next one
            }
        }
        return Optional.empty();
    }
}
