package io.drover.server.keys;

import io.drover.core.match.Glob;
import io.drover.model.keys.KeyState;
import io.drover.model.keys.MinionKey;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import io.drover.server.store.SqlTime;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.AgentMode;
import io.drover.transport.master.KeyDecision;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Minion keys in the database, with salt-key's states: a new key is pending (or accepted when its id matches an
 * auto-accept glob); an operator accepts or rejects it; a different key for a known id is denied. Every decision
 * is a {@code salt/auth} or {@code salt/key} event.
 */
public final class KeyStore implements io.drover.server.agentlink.KeyDecisions {
    public static final String ACCEPTED = "accepted";
    public static final String PENDING = "pending";
    public static final String REJECTED = "rejected";
    public static final String DENIED = "denied";

    private final Jdbi jdbi;
    private final EventStore events;
    private final List<Glob> autoAccept;
    private final EnrollmentTokenStore enrollment;
    private final AgentRegistry agents;
    private final Runnable onRevoked;
    private final java.util.concurrent.ConcurrentHashMap<String, String> acceptedCache = new java.util.concurrent.ConcurrentHashMap<>();
    /** Transport modes recorded (not the absence of one: another server of a cluster may record it meanwhile). */
    private final java.util.concurrent.ConcurrentHashMap<String, AgentMode> modeCache = new java.util.concurrent.ConcurrentHashMap<>();
    private final Clock clock;
    private final io.drover.server.store.GroupCommit signIns;
    private final int maxPending;
    public static final int DEFAULT_MAX_PENDING = 10_000;

    /**
     * {@code onRevoked} runs after a key is rejected or deleted: the master's session key is rotated so that the minion
     * is cut off.
     */
    public KeyStore(Jdbi jdbi, EventStore events, List<Glob> autoAccept, EnrollmentTokenStore enrollment, AgentRegistry agents,
                    Runnable onRevoked, Clock clock) {
        this(jdbi, events, autoAccept, enrollment, agents, onRevoked, DEFAULT_MAX_PENDING, clock);
    }

    /** @param maxPending pending keys kept at most ({@code max-pending-keys}): a new one drops the oldest past it */
    public KeyStore(Jdbi jdbi, EventStore events, List<Glob> autoAccept, EnrollmentTokenStore enrollment, AgentRegistry agents,
                    Runnable onRevoked, int maxPending, Clock clock) {
        this.maxPending = maxPending;
        this.jdbi = jdbi;
        this.events = events;
        this.autoAccept = List.copyOf(autoAccept);
        this.enrollment = enrollment;
        this.agents = agents;
        this.onRevoked = onRevoked;
        this.clock = clock;
        this.signIns = new io.drover.server.store.GroupCommit(jdbi, 250);
    }

    /**
     * Decides on a presented key. {@code enrollToken} is the {@code drover_enroll} field of the auth request: a valid
     * enrollment token accepts a new or pending key of that id and places the agent in the token's business.
     */
    @Override
    public KeyDecision decide(String id, String publicPem, Object enrollToken) {
        String pem = publicPem.strip();
        // A sign-in storm (thousands of agents signing in at once, or again after a restart) shares transactions:
        // each sign-in's reads, writes and event are queued, committed together with the others waiting, and
        // published on the event thread, so a storm holds one database connection instead of queueing for all.
        Decided decided = signIns.write(h -> {
            Optional<StoredKey> stored = find(h, id);
            boolean known = stored.isPresent() && stored.get().pem.strip().equals(pem) && !stored.get().state.equals(REJECTED)
                    && (stored.get().state.equals(ACCEPTED) || enrollToken == null);
            KeyDecision d = decide(h, id, pem, enrollToken);
            List<io.drover.model.events.Event> fired = events.appendPublished(h, List.of(Map.entry("salt/auth", Map.of("id", id,
                    "result", d.name().toLowerCase(java.util.Locale.ROOT), "act", switch (d) {
                        case ACCEPTED -> "accept";
                        case PENDING -> "pend";
                        default -> "reject";
                    }))));
            return new Decided(d, known, fired);
        });
        events.publishCommitted(decided.fired());
        if (!decided.known()) {
            events.publishPendingSoon(); // a new key, or a changed one: what decide wrote about it
        }
        if (decided.decision() == KeyDecision.ACCEPTED) {
            acceptedCache.put(id, pem); // its first request after the sign-in needs no database read
        }
        return decided.decision();
    }

    private record Decided(KeyDecision decision, boolean known, List<io.drover.model.events.Event> fired) {
    }

    private KeyDecision decide(Handle h, String id, String pem, Object enrollToken) {
        Optional<StoredKey> stored = find(h, id);
        if (stored.isEmpty()) {
            Optional<Long> enrolledBiz = enrollToken == null ? Optional.empty() : enrollment.redeem(h, enrollToken, id);
            boolean auto = enrolledBiz.isPresent() || autoAccept.stream().anyMatch(g -> g.matches(id));
            insert(h, id, auto ? ACCEPTED : PENDING, pem);
            enrolledBiz.ifPresent(biz -> agents.enrolled(h, id, biz));
            return auto ? KeyDecision.ACCEPTED : KeyDecision.PENDING;
        }
        StoredKey key = stored.get();
        if (key.state.equals(REJECTED)) {
            return KeyDecision.REJECTED;
        }
        if (!key.pem.strip().equals(pem)) {
            events.append(h, "salt/key", Map.of("id", id, "act", "denied",
                    "detail", "a different key was presented for a known id"));
            return KeyDecision.DENIED;
        }
        if (key.state.equals(PENDING) && enrollToken != null) {
            Optional<Long> enrolledBiz = enrollment.redeem(h, enrollToken, id);
            if (enrolledBiz.isPresent()) {
                h.createUpdate("UPDATE minion_key SET state = 'accepted', updated_at = :now WHERE id = :id")
                        .bind("now", OffsetDateTime.now(clock)).bind("id", id).execute();
                events.append(h, "salt/key", Map.of("id", id, "act", "accept", "detail", "enrollment token"));
                agents.enrolled(h, id, enrolledBiz.get());
                return KeyDecision.ACCEPTED;
            }
        }
        return key.state.equals(ACCEPTED) ? KeyDecision.ACCEPTED : KeyDecision.PENDING;
    }

    /** The accepted key of an id, or null. Asked on every agent request, so answered from memory after the first time. */
    @Override
    public String acceptedKey(String id) {
        String cached = acceptedCache.get(id);
        if (cached != null) {
            return cached;
        }
        String pem = jdbi.withHandle(h -> find(h, id)).filter(k -> k.state.equals(ACCEPTED)).map(k -> k.pem).orElse(null);
        if (pem != null) {
            acceptedCache.put(id, pem);
        }
        return pem;
    }

    /** Records the transport mode an accepted minion signed in with or was heard in (called when it changes). */
    @Override
    public void recordMode(String id, AgentMode mode) {
        if (storedMode(id) == mode) {
            modeCache.put(id, mode);
            return; // as already stored (every agent, when a restarted server meets its fleet again)
        }
        signIns.write(h -> h.createUpdate("UPDATE minion_key SET transport_mode = :mode WHERE id = :id")
                .bind("mode", mode.label()).bind("id", id).execute());
        modeCache.put(id, mode);
    }

    /** The transport mode recorded for a minion, or null. */
    @Override
    public AgentMode mode(String id) {
        AgentMode cached = modeCache.get(id);
        if (cached != null) {
            return cached;
        }
        AgentMode mode = storedMode(id);
        if (mode != null) {
            modeCache.put(id, mode);
        }
        return mode;
    }

    private AgentMode storedMode(String id) {
        return AgentMode.ofLabel(jdbi.withHandle(h -> h.createQuery("SELECT transport_mode FROM minion_key WHERE id = :id")
                .bind("id", id).mapTo(String.class).findOne().orElse(null)));
    }

    public List<MinionKey> list(String state) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM minion_key" + (state == null ? "" : " WHERE state = :state")
                        + " ORDER BY id").bindMap(state == null ? Map.of() : Map.of("state", state))
                .map((rs, ctx) -> minionKey(rs)).list());
    }

    public List<String> acceptedIds() {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM minion_key WHERE state = 'accepted' ORDER BY id")
                .mapTo(String.class).list());
    }

    public MinionKey setState(String id, String state) {
        acceptedCache.remove(id);
        modeCache.remove(id);
        MinionKey key = jdbi.inTransaction(h -> {
            StoredKey stored = find(h, id).orElseThrow(() -> DomainException.notFound("key", id));
            if (!stored.state.equals(state)) {
                h.createUpdate("UPDATE minion_key SET state = :state, updated_at = :now WHERE id = :id")
                        .bind("state", state).bind("now", OffsetDateTime.now(clock)).bind("id", id).execute();
                events.append(h, "salt/key", Map.of("id", id, "act", state.equals(ACCEPTED) ? "accept" : "reject"));
            }
            return get(h, id);
        });
        events.publishPending();
        if (!state.equals(ACCEPTED)) {
            onRevoked.run();
        }
        return key;
    }

    public void delete(String id) {
        acceptedCache.remove(id);
        modeCache.remove(id);
        jdbi.useTransaction(h -> {
            find(h, id).orElseThrow(() -> DomainException.notFound("key", id));
            h.createUpdate("DELETE FROM minion_key WHERE id = :id").bind("id", id).execute();
            agents.forget(h, id);
            events.append(h, "salt/key", Map.of("id", id, "act", "delete"));
        });
        events.publishPending();
        onRevoked.run();
    }

    private MinionKey get(Handle h, String id) {
        return h.createQuery("SELECT * FROM minion_key WHERE id = :id").bind("id", id).map((rs, ctx) -> minionKey(rs)).one();
    }

    private static MinionKey minionKey(java.sql.ResultSet rs) throws java.sql.SQLException {
        // Computed from the key rather than read from the fingerprint column: rows written before the fingerprint
        // followed Salt's form (sha256 over the PEM text, not the DER bytes) still show what the minion shows.
        return new MinionKey(rs.getString("id"), KeyState.ofWire(rs.getString("state")), RsaKeys.fingerprint(rs.getString("public_key")),
                SqlTime.read(rs, "created_at"), SqlTime.read(rs, "updated_at"));
    }

    private void insert(Handle h, String id, String state, String pem) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        if (state.equals(PENDING)) {
            dropOldestPendingBeyond(h, maxPending - 1);
        }
        h.createUpdate("""
                        INSERT INTO minion_key (id, state, public_key, fingerprint, created_at, updated_at)
                        VALUES (:id, :state, :pem, :finger, :now, :now)""")
                .bind("id", id).bind("state", state).bind("pem", pem).bind("finger", RsaKeys.fingerprint(pem))
                .bind("now", now).execute();
        events.append(h, "salt/key", Map.of("id", id, "act", state.equals(ACCEPTED) ? "accept" : "pend"));
    }

    /**
     * Anyone who reaches the request port can present keys: pending ones are capped, the oldest dropped first (with a
     * {@code salt/key} event, act {@code dropped}), so that a flood of made-up ids cannot grow the table without end.
     */
    private void dropOldestPendingBeyond(Handle h, int keep) {
        long pending = h.createQuery("SELECT COUNT(*) FROM minion_key WHERE state = :state").bind("state", PENDING)
                .mapTo(Long.class).one();
        if (pending <= keep) {
            return;
        }
        List<String> oldest = h.createQuery("SELECT id FROM minion_key WHERE state = :state ORDER BY created_at, id LIMIT :n")
                .bind("state", PENDING).bind("n", pending - keep).mapTo(String.class).list();
        for (String old : oldest) {
            h.createUpdate("DELETE FROM minion_key WHERE id = :id AND state = :state").bind("id", old).bind("state", PENDING).execute();
            events.append(h, "salt/key", Map.of("id", old, "act", "dropped", "detail",
                    "pending keys are capped at " + maxPending + " (setting max-pending-keys); the oldest was dropped"));
        }
    }

    private static Optional<StoredKey> find(Handle h, String id) {
        return h.createQuery("SELECT state, public_key FROM minion_key WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> new StoredKey(rs.getString(1), rs.getString(2))).findOne();
    }

    private record StoredKey(String state, String pem) {
    }
}
