package io.drover.server.packages;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Package archives in the database, in chunks of {@link #CHUNK} bytes, so that every server of a cluster can serve
 * every package: a server that lacks a package file (it was uploaded through another server) restores it from here,
 * checking its sha256. Chunks keep memory bounded for archives of up to a gigabyte.
 */
public final class PackageChunkStore {
    static final int CHUNK = 1 << 20;

    private final Jdbi jdbi;

    public PackageChunkStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Replaces the stored chunks of a package with the file's bytes, in the caller's transaction. */
    void write(Handle h, String name, String version, Path file) {
        delete(h, name, version);
        var insert = h.prepareBatch("INSERT INTO package_chunk (name, version, seq, bytes) VALUES (:name, :version, :seq, :bytes)");
        try (InputStream in = Files.newInputStream(file)) {
            int seq = 0;
            int batched = 0;
            while (true) {
                byte[] chunk = in.readNBytes(CHUNK);
                if (chunk.length == 0) {
                    break;
                }
                insert.bind("name", name).bind("version", version).bind("seq", seq++).bind("bytes", chunk).add();
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

    void delete(Handle h, String name, String version) {
        h.createUpdate("DELETE FROM package_chunk WHERE name = :name AND version = :version")
                .bind("name", name).bind("version", version).execute();
    }

    /** Whether any chunk of the package is stored. */
    boolean has(String name, String version) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM package_chunk WHERE name = :name AND version = :version")
                .bind("name", name).bind("version", version).mapTo(Long.class).one() > 0);
    }

    /**
     * Writes the package's stored bytes to {@code target} (through a temporary file, moved into place) when their
     * sha256 is {@code sha256}; false when no chunk is stored or the bytes differ.
     */
    boolean restore(String name, String version, String sha256, Path target) {
        Path partial = target.resolveSibling(target.getFileName() + ".restoring");
        try {
            Files.createDirectories(target.getParent());
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            int count;
            try (OutputStream out = Files.newOutputStream(partial)) {
                count = jdbi.withHandle(h -> {
                    List<Integer> seqs = h.createQuery("SELECT seq FROM package_chunk WHERE name = :name AND version = :version ORDER BY seq")
                            .bind("name", name).bind("version", version).mapTo(Integer.class).list();
                    for (int seq : seqs) { // one chunk in memory at a time
                        byte[] bytes = h.createQuery("SELECT bytes FROM package_chunk WHERE name = :name AND version = :version AND seq = :seq")
                                .bind("name", name).bind("version", version).bind("seq", seq).mapTo(byte[].class).one();
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
                Files.deleteIfExists(partial);
                return false;
            }
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore " + target, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
