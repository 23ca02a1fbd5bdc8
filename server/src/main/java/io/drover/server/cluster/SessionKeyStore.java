package io.drover.server.cluster;

import io.drover.server.events.EventStore;
import io.drover.server.store.SecretBox;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/**
 * The AES session key a cluster's servers share, in PostgreSQL, sealed with the cluster's {@code secret.key}: every
 * server encrypts publishes and answers requests under the same key, so an agent that moves to another server keeps
 * its session instead of signing in again. A rotation (after a key is rejected or deleted) writes the next
 * generation; each server adopts it when told through NATS, and checks the generation every lease period in case it
 * missed the message.
 */
public final class SessionKeyStore {
    /** One generation of the shared key. */
    public record Generation(long number, String key) {
    }

    /** The event that tells the other servers a new generation is stored (its data: the generation). */
    public static final String ROTATED = "drover/cluster/session-key/rotated";

    private final Jdbi jdbi;
    private final SecretBox box;
    private final Supplier<String> newKey;
    private final EventStore events;
    private final Clock clock;

    /** @param newKey makes a fresh key string (Salt's AES + HMAC key) */
    public SessionKeyStore(Jdbi jdbi, SecretBox box, Supplier<String> newKey, EventStore events, Clock clock) {
        this.jdbi = jdbi;
        this.box = box;
        this.newKey = newKey;
        this.events = events;
        this.clock = clock;
    }

    /** The current generation; the first server of a cluster creates it. */
    public Generation current() {
        Optional<Generation> stored = read();
        if (stored.isPresent()) {
            return stored.get();
        }
        String key = newKey.get();
        jdbi.useHandle(h -> h.createUpdate("INSERT INTO session_key (id, generation, sealed, rotated_at) VALUES (1, 1, :sealed, :now) "
                + "ON CONFLICT (id) DO NOTHING").bind("sealed", box.seal(key)).bind("now", OffsetDateTime.now(clock)).execute());
        return read().orElseThrow();
    }

    /**
     * Writes the next generation (one statement: concurrent rotations each move it one step), with the event that
     * tells the other servers, and returns it.
     */
    public Generation rotate() {
        current();
        Generation rotated = jdbi.inTransaction(h -> {
            h.createUpdate("UPDATE session_key SET generation = generation + 1, sealed = :sealed, rotated_at = :now WHERE id = 1")
                    .bind("sealed", box.seal(newKey.get())).bind("now", OffsetDateTime.now(clock)).execute();
            Generation g = h.createQuery("SELECT generation, sealed FROM session_key WHERE id = 1")
                    .map((rs, ctx) -> new Generation(rs.getLong(1), box.open(rs.getString(2)))).one();
            events.append(h, ROTATED, Map.of("generation", g.number()));
            return g;
        });
        events.publishPending();
        return rotated;
    }

    /** The stored generation number, without opening the key (0: none yet). */
    public long generation() {
        return jdbi.withHandle(h -> h.createQuery("SELECT generation FROM session_key WHERE id = 1").mapTo(Long.class)
                .findOne().orElse(0L));
    }

    private Optional<Generation> read() {
        return jdbi.withHandle(h -> h.createQuery("SELECT generation, sealed FROM session_key WHERE id = 1")
                .map((rs, ctx) -> new Generation(rs.getLong(1), box.open(rs.getString(2)))).findOne());
    }
}
