package io.drover.server.agentinstall;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The SSH host keys seen, by address and port: recorded on first contact, checked on every later one. A host whose
 * key changed is refused with both fingerprints; an operator who knows why removes the row (docs/security.md).
 */
public final class HostKeyStore {
    private final Jdbi jdbi;
    private final Clock clock;

    public HostKeyStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** What the check of a presented key found. */
    public sealed interface Outcome {
    }

    public record FirstSeen(String fingerprint) implements Outcome {
    }

    public record Known(String fingerprint) implements Outcome {
    }

    public record Changed(String recordedType, String recorded, String presentedType, String presented) implements Outcome {
    }

    /** Records the key of a host seen for the first time; otherwise compares it with the recorded one. */
    public Outcome check(String address, int port, String keyType, String fingerprint) {
        return jdbi.inTransaction(h -> {
            Optional<String[]> recorded = recorded(h, address, port);
            if (recorded.isEmpty()) {
                int inserted = h.createUpdate("""
                                INSERT INTO ssh_host_key (address, port, key_type, fingerprint, first_seen)
                                SELECT :address, :port, :type, :finger, :now
                                WHERE NOT EXISTS (SELECT 1 FROM ssh_host_key WHERE address = :address AND port = :port)""")
                        .bind("address", address).bind("port", port).bind("type", keyType).bind("finger", fingerprint)
                        .bind("now", OffsetDateTime.now(clock)).execute();
                if (inserted == 1) {
                    return new FirstSeen(fingerprint);
                }
                recorded = recorded(h, address, port);
            }
            String[] r = recorded.orElseThrow();
            return r[1].equals(fingerprint) ? new Known(fingerprint) : new Changed(r[0], r[1], keyType, fingerprint);
        });
    }

    private static Optional<String[]> recorded(org.jdbi.v3.core.Handle h, String address, int port) {
        return h.createQuery("SELECT key_type, fingerprint FROM ssh_host_key WHERE address = :address AND port = :port")
                .bind("address", address).bind("port", port)
                .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)}).findOne();
    }
}
