package io.drover.server.files;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Salt's fileserver over the request channel, serving one directory (where plugin packages live): {@code _file_list},
 * {@code _file_hash} (sha256) and {@code _serve_file} in chunks. Paths are relative to the root; a path that is
 * absolute, holds {@code ..} or leaves the root through a link is refused.
 */
public final class FileServer implements io.drover.server.agentlink.FileRequests {
    public static final int CHUNK = 256 * 1024;

    /** Brings back a file the root lacks (a package stored through another server), by its relative path. */
    public interface Restorer {
        /** True when the file is under the root now. */
        boolean restore(String relativePath);
    }

    private final Path root;
    private final Restorer restorer;
    private final ConcurrentHashMap<Path, CachedHash> hashes = new ConcurrentHashMap<>();
    /** One restore at a time per file: the agents of a batch asking for a missing package at once wait for it. */
    private final SingleFlight<Path, Boolean> restores = new SingleFlight<>();

    private record CachedHash(long size, FileTime modified, String sha256) {
    }

    public FileServer(Path root) {
        this(root, relativePath -> false);
    }

    public FileServer(Path root, Restorer restorer) {
        this.restorer = restorer;
        try {
            this.root = Files.createDirectories(root).toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the file root " + root, e);
        }
    }

    public Path root() {
        return root;
    }

    /** The file a relative path names under the root, or empty when the path is unsafe or names no regular file. */
    public Optional<Path> resolve(Object requested) {
        if (!(requested instanceof String text) || text.isEmpty() || text.length() > 4096 || text.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        String path = text.startsWith("salt://") ? text.substring("salt://".length()) : text;
        if (path.startsWith("/") || path.startsWith("\\") || List.of(path.split("[/\\\\]")).contains("..")) {
            return Optional.empty();
        }
        Path file = root.resolve(path).normalize();
        try {
            if (file.startsWith(root) && !Files.exists(file) && !restores.run(file,
                    () -> Files.exists(file) || restorer.restore(root.relativize(file).toString()))) {
                return Optional.empty();
            }
            if (!file.startsWith(root) || !Files.isRegularFile(file) || !file.toRealPath().startsWith(root)) {
                return Optional.empty();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.of(file);
    }

    /** Every regular file under the root whose relative path starts with {@code prefix}, sorted. */
    @Override
    public List<String> list(String prefix) {
        String wanted = prefix == null ? "" : prefix;
        try (Stream<Path> files = Files.walk(root)) {
            return files.map(f -> root.relativize(f).toString().replace('\\', '/'))
                    .filter(p -> p.startsWith(wanted) && resolve(p).isPresent()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
    }

    /** {@code {hsum, hash_type: sha256}}, or an empty map for a missing or unsafe path (as Salt answers). */
    @Override
    public Map<String, Object> hash(Object path) {
        return resolve(path).map(file -> {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("hsum", sha256(file));
            out.put("hash_type", "sha256");
            return out;
        }).orElse(Map.of());
    }

    /** One chunk from offset {@code loc}: {@code {data, dest}}; data is empty at the end of the file. */
    @Override
    public Map<String, Object> serve(Object path, Object loc) {
        Optional<Path> file = resolve(path);
        long offset = loc instanceof Number n ? n.longValue() : 0L;
        if (file.isEmpty() || offset < 0) {
            return Map.of("data", "", "dest", "");
        }
        try (SeekableByteChannel channel = Files.newByteChannel(file.get())) {
            long size = channel.size();
            byte[] chunk = new byte[(int) Math.max(0, Math.min(CHUNK, size - offset))];
            channel.position(Math.min(offset, size));
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(chunk);
            while (buffer.hasRemaining() && channel.read(buffer) > 0) {
                // read the whole chunk
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("data", chunk);
            out.put("dest", root.relativize(file.get()).toString());
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file.get(), e);
        }
    }

    /** The sha256 of a file, cached while its size and modification time stay the same. */
    public String sha256(Path file) {
        try {
            long size = Files.size(file);
            FileTime modified = Files.getLastModifiedTime(file);
            CachedHash cached = hashes.get(file);
            if (cached != null && cached.size == size && cached.modified.equals(modified)) {
                return cached.sha256;
            }
            String hex;
            try (InputStream in = Files.newInputStream(file)) {
                hex = io.drover.core.Hashing.sha256(in);
            }
            hashes.put(file, new CachedHash(size, modified, hex));
            return hex;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
