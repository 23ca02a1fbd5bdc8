package io.drover.server.agents;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.agents.LinkConflict;
import io.drover.model.agents.LinkConflictReason;
import io.drover.model.keys.KeyState;
import io.drover.server.store.Dialect;
import io.drover.server.store.JdbcBatch;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/** The SQL of the {@code agent} table (and the key states listed with agents); methods run in the caller's transaction. */
final class AgentStore {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    /** An agent's row. */
    record Row(String id, Long bizId, Long hostId, String version, Map<String, Object> grains, String grainsDigest,
               int heartbeatSeconds, boolean online, OffsetDateTime lastSeen) {
    }

    /** An online/lost change to write. */
    record Presence(String id, boolean online, OffsetDateTime lastSeen) {
    }

    List<Row> all(Handle h) {
        return h.createQuery("SELECT * FROM agent").map((rs, ctx) -> new Row(rs.getString("id"),
                Sql.nullableLong(rs, "bk_biz_id"), Sql.nullableLong(rs, "bk_host_id"),
                rs.getString("version"), Sql.fromJson(rs.getString("grains"), MAP), rs.getString("grains_digest"),
                rs.getInt("heartbeat_seconds"), rs.getBoolean("online"), SqlTime.read(rs, "last_seen"))).list();
    }

    /** Sets the business of an agent's row, inserting the row when there is none. */
    void placeInBusiness(Handle h, String id, long bizId) {
        if (place(h, id, bizId) == 0 && insert(h, id, bizId) == 0) {
            // written meanwhile by the presence check, a heartbeat or another server: place that row
            place(h, id, bizId);
        }
    }

    private static int place(Handle h, String id, long bizId) {
        return h.createUpdate("UPDATE agent SET bk_biz_id = :biz WHERE id = :id").bind("biz", bizId).bind("id", id).execute();
    }

    void insertIfAbsent(Handle h, String id, Long bizId) {
        if (h.createQuery("SELECT COUNT(*) FROM agent WHERE id = :id").bind("id", id).mapTo(Long.class).one() == 0) {
            insert(h, id, bizId);
        }
    }

    /**
     * Inserts an agent's row unless one is there; how many rows it inserted. The presence check, a heartbeat and the
     * other servers of a cluster may each write a new agent's row at the same moment: the one that comes second must
     * not fail (a failed heartbeat is answered "bad load" and makes the agent sign in again).
     */
    private static int insert(Handle h, String id, Long bizId) {
        return h.createUpdate("""
                        INSERT INTO agent (id, bk_biz_id, grains, heartbeat_seconds, online)
                        VALUES (:id, :biz, '{}', 0, FALSE) ON CONFLICT (id) DO NOTHING""").bind("id", id).bind("biz", bizId).execute();
    }

    /** Inserts the rows of new agents (without business) that are not there yet. */
    void insertNew(Handle h, List<String> ids) {
        if (ids.isEmpty()) {
            return;
        }
        Set<String> existing = new HashSet<>(h.createQuery("SELECT id FROM agent WHERE id IN (<ids>)")
                .bindList("ids", ids).mapTo(String.class).list());
        var insert = h.prepareBatch("""
                INSERT INTO agent (id, bk_biz_id, grains, heartbeat_seconds, online) VALUES (:id, NULL, '{}', 0, FALSE)
                ON CONFLICT (id) DO NOTHING""");
        ids.stream().filter(id -> !existing.contains(id)).forEach(id -> insert.bind("id", id).add());
        if (insert.size() > 0) {
            insert.execute();
        }
    }

    void updateFacts(Handle h, String id, String version, String grainsJson, String digest, int interval) {
        h.createUpdate("""
                        UPDATE agent SET version = :version, grains = :grains, grains_digest = :digest,
                        heartbeat_seconds = :interval WHERE id = :id""")
                .bind("version", version).bind("grains", grainsJson).bind("digest", digest).bind("interval", interval)
                .bind("id", id).execute();
    }

    /** Links an agent to a host in a business; a link conflict it had is over. */
    void link(Handle h, String id, long hostId, long bizId) {
        h.createUpdate("""
                        UPDATE agent SET bk_host_id = :host, bk_biz_id = :biz, link_conflict = NULL, link_conflict_ip = NULL,
                        link_conflict_cloud = NULL, link_conflict_host = NULL, link_conflict_at = NULL WHERE id = :id""")
                .bind("host", hostId).bind("biz", bizId).bind("id", id).execute();
    }

    void unlink(Handle h, String id) {
        h.createUpdate("UPDATE agent SET bk_host_id = NULL WHERE id = :id").bind("id", id).execute();
    }

    /**
     * Locks an agent's row for the rest of the transaction (links of one agent are made one at a time, on any
     * server of a cluster) and returns the host it is linked to; empty when there is no row.
     */
    Optional<Linked> lockAgent(Handle h, String id) {
        return h.createQuery("SELECT bk_host_id FROM agent WHERE id = :id" + Dialect.of(h).forUpdate()).bind("id", id)
                .map((rs, ctx) -> new Linked(Sql.nullableLong(rs, "bk_host_id"))).findOne();
    }

    /** The host an agent's row links it to (null: none). */
    record Linked(Long hostId) {
    }

    /**
     * Locks a host's row for the rest of the transaction (two agents claiming it are linked one at a time) and
     * returns its business; empty when there is no such host.
     */
    Optional<Long> lockHostBusiness(Handle h, long hostId) {
        return h.createQuery("SELECT bk_biz_id FROM host WHERE bk_host_id = :host" + Dialect.of(h).forUpdate()).bind("host", hostId)
                .mapTo(Long.class).findOne();
    }

    /** Another agent linked to this host (empty: none). */
    Optional<String> otherAgentOnHost(Handle h, long hostId, String id) {
        return h.createQuery("SELECT id FROM agent WHERE bk_host_id = :host AND id <> :id ORDER BY id").bind("host", hostId)
                .bind("id", id).mapTo(String.class).findFirst();
    }

    void saveConflict(Handle h, String id, LinkConflict c) {
        h.createUpdate("""
                        UPDATE agent SET link_conflict = :reason, link_conflict_ip = :ip, link_conflict_cloud = :cloud,
                        link_conflict_host = :host, link_conflict_at = :at WHERE id = :id""")
                .bind("reason", c.reason().wireName()).bind("ip", c.claimedIp()).bind("cloud", c.bkCloudId())
                .bind("host", c.bkHostId()).bind("at", c.since()).bind("id", id).execute();
    }

    /** The link conflict of one agent (empty: none). */
    Optional<LinkConflict> conflict(Handle h, String id) {
        return h.createQuery("SELECT * FROM agent WHERE id = :id AND link_conflict IS NOT NULL").bind("id", id)
                .map((rs, ctx) -> conflict(rs)).findOne();
    }

    /** Agent id → link conflict, for the agents that have one. */
    Map<String, LinkConflict> conflicts(Handle h) {
        Map<String, LinkConflict> out = new java.util.HashMap<>();
        h.createQuery("SELECT * FROM agent WHERE link_conflict IS NOT NULL")
                .map((rs, ctx) -> Map.entry(rs.getString("id"), conflict(rs))).forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    private static LinkConflict conflict(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new LinkConflict(LinkConflictReason.parse(rs.getString("link_conflict")), rs.getString("link_conflict_ip"),
                rs.getLong("link_conflict_cloud"), Sql.nullableLong(rs, "link_conflict_host"),
                SqlTime.read(rs, "link_conflict_at"));
    }

    void updatePresence(Handle h, List<Presence> changes) {
        if (changes.isEmpty()) {
            return;
        }
        if (Dialect.of(h) == Dialect.POSTGRESQL) {
            // one statement: the driver sends a batch of updates as one execution per row
            h.createUpdate("""
                            UPDATE agent a SET online = u.online, last_seen = CAST(u.seen AS TIMESTAMP WITH TIME ZONE)
                            FROM unnest(:ids, :onlines, :seens) AS u(id, online, seen) WHERE a.id = u.id""")
                    .bindArray("ids", String.class, changes.stream().map(Presence::id).toArray())
                    .bindArray("onlines", Boolean.class, changes.stream().map(Presence::online).toArray())
                    .bindArray("seens", String.class, changes.stream().map(c -> c.lastSeen() == null ? null : c.lastSeen().toString()).toArray())
                    .execute();
            return;
        }
        JdbcBatch.run(h, "UPDATE agent SET online = ?, last_seen = ? WHERE id = ?", changes, (statement, c) -> {
            statement.setBoolean(1, c.online());
            statement.setString(2, c.lastSeen() == null ? null : SqlTime.format(c.lastSeen()));
            statement.setString(3, c.id());
        });
    }

    /** Writes when each agent was last heard from; every server of a cluster writes its own agents' every 30 s. */
    void updateLastSeen(Handle h, Map<String, OffsetDateTime> lastSeen) {
        if (lastSeen.isEmpty()) {
            return;
        }
        if (Dialect.of(h) == Dialect.POSTGRESQL) {
            // one statement: the driver sends a batch of updates as one execution per row (30,000 agents: 30,000)
            h.createUpdate("""
                            UPDATE agent a SET last_seen = CAST(u.seen AS TIMESTAMP WITH TIME ZONE)
                            FROM unnest(:ids, :seens) AS u(id, seen) WHERE a.id = u.id""")
                    .bindArray("ids", String.class, lastSeen.keySet().toArray())
                    .bindArray("seens", String.class, lastSeen.values().stream().map(OffsetDateTime::toString).toArray())
                    .execute();
            return;
        }
        JdbcBatch.run(h, "UPDATE agent SET last_seen = ? WHERE id = ?", lastSeen.entrySet(), (statement, e) -> {
            statement.setString(1, SqlTime.format(e.getValue()));
            statement.setString(2, e.getKey());
        });
    }

    /** When each of these agents was last heard from by any server, and its heartbeat interval. */
    record Heard(String id, OffsetDateTime lastSeen, int heartbeatSeconds) {
    }

    List<Heard> heard(Handle h, java.util.Collection<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return h.createQuery("SELECT id, last_seen, heartbeat_seconds FROM agent WHERE id IN (<ids>)")
                .bindList("ids", List.copyOf(ids))
                .map((rs, ctx) -> new Heard(rs.getString(1), SqlTime.read(rs, 2), rs.getInt(3))).list();
    }

    void delete(Handle h, String id) {
        h.createUpdate("DELETE FROM agent WHERE id = :id").bind("id", id).execute();
    }

    /** Every key id with its state (accepted, pending, …), in id order. */
    /** A key's state and the transport mode its minion last signed in with (null before that). */
    record KeyRow(KeyState state, String mode) {
    }

    Map<String, KeyRow> keyStates(Handle h) {
        Map<String, KeyRow> out = new java.util.LinkedHashMap<>();
        h.createQuery("SELECT id, state, transport_mode FROM minion_key ORDER BY id")
                .map((rs, ctx) -> Map.entry(rs.getString(1), new KeyRow(KeyState.ofWire(rs.getString(2)), rs.getString(3))))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }
}
