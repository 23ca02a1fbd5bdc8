package io.drover.server.agentpackages;

import io.drover.core.agents.AgentPackageName;
import io.drover.model.agents.AgentPackageInfo;
import io.drover.server.store.SqlTime;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The SQL of agent packages: one {@code agent_package} row each, and the archive's bytes in {@code agent_package_chunk}
 * rows of {@link #CHUNK} bytes, so that every server of a cluster can serve every package (memory stays bounded for
 * archives of any size: one chunk at a time).
 */
public final class AgentPackageStore {
    static final int CHUNK = 1 << 20;

    private final Jdbi jdbi;

    public AgentPackageStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public List<AgentPackageInfo> list() {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM agent_package ORDER BY arch, uploaded_at")
                .map((rs, ctx) -> info(rs)).list());
    }

    public Optional<AgentPackageInfo> find(AgentPackageName name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM agent_package WHERE version = :version AND os = :os AND arch = :arch")
                .bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch())
                .map((rs, ctx) -> info(rs)).findOne());
    }

    /**
     * Records a package and its bytes (read from {@code file}) in one transaction, unless a package of that version
     * and architecture is stored already (by another request or another server): then nothing is written and the
     * answer is false.
     */
    public boolean insertIfAbsent(AgentPackageName name, String sha256, long size, OffsetDateTime uploadedAt, String uploadedBy,
                                  Path file) {
        return jdbi.inTransaction(h -> {
            int inserted = h.createUpdate("""
                            INSERT INTO agent_package (version, os, arch, sha256, size_bytes, uploaded_at, uploaded_by)
                            VALUES (:version, :os, :arch, :sha, :size, :at, :by)
                            ON CONFLICT DO NOTHING""")
                    .bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch())
                    .bind("sha", sha256).bind("size", size).bind("at", uploadedAt).bind("by", uploadedBy).execute();
            if (inserted == 1) {
                writeChunks(h, name, file);
            }
            return inserted == 1;
        });
    }

    /** Deletes a package's row and bytes; false when it was not stored. */
    public boolean delete(AgentPackageName name) {
        return jdbi.inTransaction(h -> {
            h.createUpdate("DELETE FROM agent_package_chunk WHERE version = :version AND os = :os AND arch = :arch")
                    .bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch()).execute();
            return h.createUpdate("DELETE FROM agent_package WHERE version = :version AND os = :os AND arch = :arch")
                    .bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch()).execute() == 1;
        });
    }

    /**
     * Writes the stored bytes of a package to {@code target} when their sha256 is {@code sha256}; false (and nothing
     * written) when no chunk is stored or they differ.
     */
    public boolean restore(AgentPackageName name, String sha256, Path target) throws IOException {
        MessageDigest digest = io.drover.core.Hashing.sha256Digest();
        int count;
        try (OutputStream out = Files.newOutputStream(target)) {
            count = jdbi.withHandle(h -> {
                List<Integer> seqs = h.createQuery("SELECT seq FROM agent_package_chunk WHERE version = :version AND os = :os"
                                + " AND arch = :arch ORDER BY seq")
                        .bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch())
                        .mapTo(Integer.class).list();
                for (int seq : seqs) { // one chunk in memory at a time
                    byte[] bytes = h.createQuery("SELECT bytes FROM agent_package_chunk WHERE version = :version AND os = :os"
                                    + " AND arch = :arch AND seq = :seq")
                            .bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch())
                            .bind("seq", seq).mapTo(byte[].class).one();
                    digest.update(bytes);
                    try {
                        out.write(bytes);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
                return seqs.size();
            });
        }
        if (count == 0 || !HexFormat.of().formatHex(digest.digest()).equals(sha256)) {
            Files.deleteIfExists(target);
            return false;
        }
        return true;
    }

    private static void writeChunks(Handle h, AgentPackageName name, Path file) {
        var insert = h.prepareBatch("INSERT INTO agent_package_chunk (version, os, arch, seq, bytes)"
                + " VALUES (:version, :os, :arch, :seq, :bytes)");
        try (InputStream in = Files.newInputStream(file)) {
            int seq = 0;
            int batched = 0;
            while (true) {
                byte[] chunk = in.readNBytes(CHUNK);
                if (chunk.length == 0) {
                    break;
                }
                insert.bind("version", name.version()).bind("os", AgentPackageName.OS).bind("arch", name.arch())
                        .bind("seq", seq++).bind("bytes", chunk).add();
                if (++batched == 16) { // at most 16 MiB held at once
                    insert.execute();
                    batched = 0;
                }
            }
            if (batched > 0) {
                insert.execute();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static AgentPackageInfo info(ResultSet rs) throws SQLException {
        AgentPackageName name = new AgentPackageName(rs.getString("version"), rs.getString("arch"));
        return new AgentPackageInfo(name.version(), rs.getString("os"), name.arch(), name.fileName(), rs.getString("sha256"),
                rs.getLong("size_bytes"), SqlTime.read(rs, "uploaded_at"), rs.getString("uploaded_by"));
    }
}
