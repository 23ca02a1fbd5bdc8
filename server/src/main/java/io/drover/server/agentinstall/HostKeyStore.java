package io.drover.server.agentinstall;

import io.drover.model.agentinstall.SshHostKey;
import io.drover.server.store.SqlTime;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The SSH host keys seen, by address and port: recorded on first contact, checked on every later one. A host whose
 * key changed is refused with both fingerprints; an admin who knows why forgets the key, and the next contact records
 * the key presented then (docs/security.md).
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

    /** Every recorded key, by address and port. */
    public List<SshHostKey> list() {
        return jdbi.withHandle(h -> h.createQuery("SELECT address, port, key_type, fingerprint, first_seen FROM ssh_host_key "
                        + "ORDER BY address, port")
                .map((rs, ctx) -> new SshHostKey(rs.getString("address"), rs.getInt("port"), rs.getString("key_type"),
                        rs.getString("fingerprint"), SqlTime.read(rs, "first_seen"))).list());
    }

    /** Removes the key recorded for an address and port; false when there is none. */
    public boolean forget(String address, int port) {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM ssh_host_key WHERE address = :address AND port = :port")
                .bind("address", address).bind("port", port).execute()) == 1;
    }

    private static Optional<String[]> recorded(org.jdbi.v3.core.Handle h, String address, int port) {
        return h.createQuery("SELECT key_type, fingerprint FROM ssh_host_key WHERE address = :address AND port = :port")
                .bind("address", address).bind("port", port)
                .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)}).findOne();
    }
}
