package io.drover.server.agentpackages;

import io.drover.core.Hashing;
import io.drover.core.agents.AgentPackageArchive;
import io.drover.core.agents.AgentPackageException;
import io.drover.core.agents.AgentPackageName;
import io.drover.model.agents.AgentPackageInfo;
import io.drover.model.api.Problem.FieldError;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.files.SingleFlight;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Agent packages the server hands out to hosts: an upload is received into a temporary file (size-limited, sha256
 * computed), checked ({@link AgentPackageArchive}), recorded with its bytes in the database (every server of a cluster
 * serves it) and placed in {@code <data-dir>/agent-packages/<file name>}, where downloads read it. A bad package leaves
 * nothing behind; a version and architecture, once stored, never changes its bytes under the hosts that install it.
 */
public final class AgentPackageService {
    /** Who stored the packages registered from the distribution at start. */
    public static final String BUILD = "system:build";
    /** The version a download may name to get the newest one of its architecture. */
    public static final String LATEST = "latest";
    /** Where agent packages are placed under the fileserver's root for agents to fetch. */
    public static final String FILES_DIR = "agent-packages";
    private static final Logger log = LoggerFactory.getLogger(AgentPackageService.class);

    private final AgentPackageStore store;
    private final Path dir;
    private final Path filesRoot;
    private final long maxUploadBytes;
    private final Clock clock;
    /** Files this run has read back and found to hold their package's sha256 ("file name sha256"). */
    private final Set<String> verified = ConcurrentHashMap.newKeySet();
    /** One restore from the database, and one copy under the file root, at a time per package file. */
    private final SingleFlight<String, Path> restores = new SingleFlight<>();
    private final SingleFlight<Path, String> publishes = new SingleFlight<>();

    /** A package stored now ({@code created}) or found stored with the same bytes. */
    public record Stored(AgentPackageInfo info, boolean created) {
    }

    /** A package to send: its row and the file that holds its bytes. */
    public record Download(AgentPackageInfo info, Path file) {
    }

    /**
     * @param dir where package files are kept: a cache of the bytes the database holds
     * @param filesRoot the fileserver's root, under which a fleet upgrade places the packages agents fetch
     */
    public AgentPackageService(AgentPackageStore store, Path dir, Path filesRoot, long maxUploadBytes, Clock clock) {
        this.store = store;
        this.dir = dir;
        this.filesRoot = filesRoot;
        this.maxUploadBytes = maxUploadBytes;
        this.clock = clock;
    }

    /** Deletes the temporary files a stop in the middle of an upload or a restore left behind; run at start. */
    public void removeLeftovers() {
        Path incoming = dir.resolve(".incoming");
        if (!Files.isDirectory(incoming, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(incoming)) {
            files.forEach(AgentPackageService::deleteQuietly);
        } catch (IOException e) {
            log.warn("cannot clear {}: {}", incoming, e.toString());
        }
    }

    public long maxUploadBytes() {
        return maxUploadBytes;
    }

    public List<AgentPackageInfo> list() {
        return store.list();
    }

    /**
     * Stores an uploaded package. {@code fileName}, when given, must be the name the package's contents give it.
     * The same bytes stored already: the stored package, not created. Other bytes for that version and architecture:
     * 409, since hosts that installed it must be able to trust the version they were told.
     */
    public Stored upload(Principal p, InputStream body, String fileName) {
        AgentPackageName claimed = null;
        if (fileName != null) {
            try {
                claimed = AgentPackageName.ofFileName(fileName);
            } catch (AgentPackageException e) {
                throw DomainException.invalid("file_name", e.getMessage());
            }
        }
        Received incoming = receive(body);
        try {
            AgentPackageName name = check(incoming.file());
            if (claimed != null && !claimed.equals(name)) {
                throw DomainException.invalid("file_name", "'" + fileName + "' does not name this package: its contents make it "
                        + name.fileName());
            }
            return store(name, incoming, p.name());
        } finally {
            deleteQuietly(incoming.file());
        }
    }

    /**
     * Deletes a stored package (hosts that installed it keep it), with its file and the copy a fleet upgrade placed
     * under the fileserver's root on this server; another server of a cluster no longer restores it.
     */
    public AgentPackageInfo delete(String version, String arch) {
        AgentPackageName name = name(version, arch);
        AgentPackageInfo info = store.find(name).orElseThrow(() -> notFound(name));
        store.delete(name);
        verified.removeIf(v -> v.startsWith(name.fileName() + " "));
        deleteQuietly(dir.resolve(name.fileName()));
        deleteQuietly(filesRoot.resolve(FILES_DIR).resolve(name.fileName()));
        return info;
    }

    /**
     * The package to send for {@code version} ({@code latest}: the newest stored for {@code arch}), its file restored
     * from the database when this server lacks it or holds other bytes.
     */
    public Download open(String version, String arch) {
        AgentPackageInfo info;
        if (LATEST.equals(version)) {
            if (!AgentPackageName.ARCHES.contains(arch)) {
                throw DomainException.invalid(List.of(archError(arch)));
            }
            info = store.list().stream().filter(p -> p.arch().equals(arch))
                    .max(Comparator.comparing(p -> new AgentPackageName(p.version(), p.arch()).semver()))
                    .orElseThrow(() -> DomainException.notFound("agent package", "for " + arch + " of any version"));
        } else {
            AgentPackageName name = name(version, arch);
            info = store.find(name).orElseThrow(() -> notFound(name));
        }
        return new Download(info, file(info));
    }

    /** The stored package of this version and architecture (empty: none, or not a valid version or architecture). */
    public Optional<AgentPackageInfo> find(String version, String arch) {
        if (AgentPackageName.versionProblem(version) != null || !AgentPackageName.ARCHES.contains(arch)) {
            return Optional.empty();
        }
        return store.find(new AgentPackageName(version, arch));
    }

    /**
     * Places a stored package under the fileserver's root as {@code agent-packages/<file name>}, for agents to fetch
     * (a fleet upgrade), unless the file there has its sha256 already; answers that relative path. One copy at a
     * time per file: callers at the same time share it.
     */
    public String publish(AgentPackageInfo info) {
        String relative = FILES_DIR + "/" + info.fileName();
        Path target = filesRoot.resolve(relative);
        return publishes.run(target, () -> {
            try {
                if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == info.sizeBytes()
                        && sha256(target).equals(info.sha256())) {
                    return relative;
                }
                Path source = file(info);
                Files.createDirectories(target.getParent());
                Path copy = Files.createTempFile(incoming(), "publish-", ".part");
                Files.copy(source, copy, StandardCopyOption.REPLACE_EXISTING);
                Files.move(copy, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                return relative;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot place agent package " + info.fileName() + " under " + filesRoot, e);
            }
        });
    }

    /**
     * The fileserver's restorer for {@code agent-packages/<file name>}: a stored package this server's file root lacks
     * (an upgrade run by another server of the cluster) is placed there. False for any other path, and for a package
     * no longer stored.
     */
    public boolean restoreFile(String relativePath) {
        String[] parts = relativePath.replace('\\', '/').split("/");
        if (parts.length != 2 || !parts[0].equals(FILES_DIR)) {
            return false;
        }
        AgentPackageName name;
        try {
            name = AgentPackageName.ofFileName(parts[1]);
        } catch (AgentPackageException e) {
            return false;
        }
        Optional<AgentPackageInfo> info = store.find(name);
        if (info.isEmpty()) {
            return false;
        }
        publish(info.get());
        return true;
    }

    /**
     * Registers the packages of {@code source} (the distribution's agent-packages directory) that are not stored yet,
     * each checked against the sha256 of the {@code .sha256} file beside it and like an upload; a package that fails
     * is logged and left out. A stored package with other bytes for the same version and architecture is kept, with a
     * warning. Answers how many were stored.
     */
    public int registerFrom(Path source) {
        if (!Files.isDirectory(source)) {
            log.info("no agent packages to register: {} is not a directory", source);
            return 0;
        }
        List<Path> candidates = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(source, "*.tar.gz")) {
            files.forEach(candidates::add);
        } catch (IOException e) {
            log.error("cannot list the agent packages of {}: {}", source, e.toString());
            return 0;
        }
        int stored = 0;
        for (Path file : candidates.stream().sorted().toList()) {
            try {
                if (register(file)) {
                    stored++;
                }
            } catch (AgentPackageException | DomainException e) {
                log.error("agent package {} was not registered: {}", file, e.getMessage());
            } catch (UncheckedIOException e) {
                log.error("agent package {} was not registered: {}", file, e.getCause().toString());
            }
        }
        return stored;
    }

    private boolean register(Path file) {
        AgentPackageName name = AgentPackageName.ofFileName(file.getFileName().toString());
        String expected = expectedSha256(file);
        Optional<AgentPackageInfo> existing = store.find(name);
        if (existing.isPresent()) {
            if (!existing.get().sha256().equals(expected)) {
                log.warn("agent package {} differs from the one stored by {} (sha256 {}); the stored one is kept: delete it"
                        + " (drover agent-package delete {} {}) to have this one registered at the next start", file,
                        existing.get().uploadedBy(), existing.get().sha256(), name.version(), name.arch());
            }
            return false;
        }
        if (!Files.isRegularFile(file)) {
            throw new AgentPackageException("it is not a regular file");
        }
        Received incoming;
        try (InputStream in = Files.newInputStream(file)) {
            incoming = receive(in, Long.MAX_VALUE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            if (!incoming.sha256().equals(expected)) {
                throw new AgentPackageException("its sha256 is " + incoming.sha256() + " but " + file.getFileName()
                        + ".sha256 says " + expected);
            }
            AgentPackageName inside = inspect(incoming.file());
            if (!inside.equals(name)) {
                throw new AgentPackageException("its contents make it " + inside.fileName());
            }
            boolean created = store(name, incoming, BUILD).created();
            if (created) {
                log.info("registered agent package {} (sha256 {})", name.fileName(), incoming.sha256());
            }
            return created;
        } finally {
            deleteQuietly(incoming.file());
        }
    }

    /** The sha256 a {@code .sha256} file beside {@code file} gives it, in sha256sum's format ("HASH  NAME"). */
    private static String expectedSha256(Path file) {
        Path sums = file.resolveSibling(file.getFileName() + ".sha256");
        String text;
        try (InputStream in = Files.newInputStream(sums)) {
            byte[] bytes = in.readNBytes(4097);
            if (bytes.length > 4096) {
                throw new AgentPackageException(sums.getFileName() + " is larger than 4096 bytes; it holds one sha256sum line");
            }
            text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).strip();
        } catch (java.nio.file.NoSuchFileException e) {
            throw new AgentPackageException("there is no " + sums.getFileName() + " beside it to check it against");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String[] parts = text.split("\\s+", 2);
        String hash = parts[0].toLowerCase(java.util.Locale.ROOT);
        String named = parts.length > 1 ? parts[1].strip() : null;
        if (!hash.matches("[0-9a-f]{64}") || text.contains("\n")
                || (named != null && !named.equals(file.getFileName().toString()) && !named.equals("*" + file.getFileName()))) {
            throw new AgentPackageException(sums.getFileName() + " does not hold one line '<sha256>  " + file.getFileName() + "'");
        }
        return hash;
    }

    private Stored store(AgentPackageName name, Received incoming, String by) {
        Optional<AgentPackageInfo> existing = store.find(name);
        if (existing.isEmpty()) {
            OffsetDateTime now = OffsetDateTime.now(clock);
            if (store.insertIfAbsent(name, incoming.sha256(), incoming.size(), now, by, incoming.file())) {
                place(incoming.file(), name, incoming.sha256());
                return new Stored(store.find(name).orElseThrow(), true);
            }
            existing = store.find(name); // another request or server stored it meanwhile
        }
        AgentPackageInfo stored = existing.orElseThrow(() -> new IllegalStateException(name.fileName() + " vanished"));
        if (!stored.sha256().equals(incoming.sha256())) {
            throw DomainException.conflict("agent_package_exists", "agent package " + name.fileName() + " is stored with other"
                    + " bytes (sha256 " + stored.sha256() + ", by " + stored.uploadedBy() + "); delete it first"
                    + " (drover agent-package delete " + name.version() + " " + name.arch() + ") or build another version");
        }
        return new Stored(stored, false);
    }

    /** Moves a checked package into place under its file name (one rename: a reader sees the whole file or none). */
    private void place(Path incoming, AgentPackageName name, String sha256) {
        Path target = dir.resolve(name.fileName());
        try {
            Path copy = Files.createTempFile(incoming(), "place-", ".part");
            Files.copy(incoming, copy, StandardCopyOption.REPLACE_EXISTING);
            Files.move(copy, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            verified.add(name.fileName() + " " + sha256);
        } catch (IOException e) {
            // the database holds the bytes: the first download restores the file
            log.warn("agent package {} is stored but its file could not be written ({}); it is restored when downloaded",
                    name.fileName(), e.toString());
        }
    }

    /**
     * The file of a stored package, restored from the database when missing or not what was stored: one restore at a
     * time per file, which callers at the same time wait for.
     */
    private Path file(AgentPackageInfo info) {
        AgentPackageName name = new AgentPackageName(info.version(), info.arch());
        return restores.run(name.fileName() + " " + info.sha256(), () -> restored(info, name));
    }

    private Path restored(AgentPackageInfo info, AgentPackageName name) {
        Path file = dir.resolve(name.fileName());
        String key = name.fileName() + " " + info.sha256();
        try {
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) == info.sizeBytes()
                    && (verified.contains(key) || sha256(file).equals(info.sha256()))) {
                verified.add(key);
                return file;
            }
            Path restoring = Files.createTempFile(incoming(), "restore-", ".part");
            if (!store.restore(name, info.sha256(), restoring)) {
                throw new IllegalStateException("the bytes of agent package " + name.fileName() + " are missing from the"
                        + " database or do not have its sha256 " + info.sha256() + "; delete it and upload it again");
            }
            Files.move(restoring, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            verified.add(key);
            log.info("restored agent package {} from the database", name.fileName());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore agent package " + name.fileName(), e);
        }
    }

    private record Received(Path file, String sha256, long size) {
    }

    private Received receive(InputStream body) {
        return receive(body, maxUploadBytes);
    }

    /** Copies a body into a temporary file, refusing it past {@code limit} bytes; sha256 computed on the way. */
    private Received receive(InputStream body, long limit) {
        try {
            Path temp = Files.createTempFile(incoming(), "upload-", ".tar.gz");
            MessageDigest digest = Hashing.sha256Digest();
            long total = 0;
            try (OutputStream out = new DigestOutputStream(Files.newOutputStream(temp), digest)) {
                byte[] buffer = new byte[65536];
                for (int n; (n = body.read(buffer)) > 0; ) {
                    total += n;
                    if (total > limit) {
                        throw DomainException.tooLarge("body_too_large", "the agent package is larger than the " + limit
                                + " bytes the server takes (agent-package-max-bytes)");
                    }
                    out.write(buffer, 0, n);
                }
            } catch (RuntimeException | IOException e) {
                deleteQuietly(temp);
                throw e;
            }
            if (total == 0) {
                deleteQuietly(temp);
                throw DomainException.badRequest("missing_body", "the request needs an agent package (.tar.gz) as its body");
            }
            return new Received(temp, HexFormat.of().formatHex(digest.digest()), total);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot receive the agent package", e);
        }
    }

    private static AgentPackageName check(Path file) {
        try {
            return inspect(file);
        } catch (AgentPackageException e) {
            throw DomainException.unprocessable("invalid_agent_package", "not an agent package Drover can hand out: "
                    + e.getMessage(), List.of(new FieldError("package", e.getMessage())));
        }
    }

    private static AgentPackageName inspect(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return AgentPackageArchive.check(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code <dir>/.incoming}, created (with {@code dir}) owner-only when missing. */
    private Path incoming() throws IOException {
        Path incoming = dir.resolve(".incoming");
        if (!Files.isDirectory(incoming)) {
            Files.createDirectories(incoming, ownerOnly());
        }
        return incoming;
    }

    private static java.nio.file.attribute.FileAttribute<?>[] ownerOnly() {
        return java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new java.nio.file.attribute.FileAttribute<?>[] {java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"))}
                : new java.nio.file.attribute.FileAttribute<?>[0];
    }

    /** A version and architecture from a request, each refused with its reason (both at once). */
    static AgentPackageName name(String version, String arch) {
        List<FieldError> errors = new ArrayList<>();
        String versionProblem = AgentPackageName.versionProblem(version);
        if (versionProblem != null) {
            errors.add(new FieldError("version", versionProblem));
        }
        if (!AgentPackageName.ARCHES.contains(arch)) {
            errors.add(archError(arch));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        return new AgentPackageName(version, arch);
    }

    private static FieldError archError(String arch) {
        return new FieldError("arch", "'" + (arch.chars().allMatch(c -> c >= 0x20 && c < 0x7f) && arch.length() <= 64 ? arch
                : "…") + "' is not one of " + AgentPackageName.ARCHES);
    }

    private static DomainException notFound(AgentPackageName name) {
        return DomainException.notFound("agent package", name.version() + " for " + name.arch());
    }

    private static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return Hashing.sha256(in);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a left-over temporary file is harmless
        }
    }
}
