package io.drover.server.packages;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PackageException;
import io.drover.core.packages.Version;
import io.drover.model.Json;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata;
import io.drover.server.errors.DomainException;
import io.drover.server.store.SqlTime;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The server's package store: checked packages under {@code <data>/files/packages/<name>/}, where agents fetch them
 * over the fileserver, and one row each (name, version, sha256, metadata). A bad package stores nothing.
 */
public final class PackageStore {
    public static final long MAX_UPLOAD_BYTES = 1L << 30;
    public static final String SOURCE_UPLOAD = "upload";

    private final Jdbi jdbi;
    private final Path filesRoot;
    private final Clock clock;
    private final PackageChunkStore chunks;

    /** @param filesRoot where package files are served from: a cache of the archives the database holds */
    public PackageStore(Jdbi jdbi, Path filesRoot, Clock clock) {
        this.jdbi = jdbi;
        this.filesRoot = filesRoot;
        this.clock = clock;
        this.chunks = new PackageChunkStore(jdbi);
    }

    /**
     * Restores a package file this server lacks from the database (it was stored through another server of the
     * cluster); {@code relativePath} as agents ask for it. False when it names no stored package.
     */
    public boolean restoreFile(String relativePath) {
        String[] parts = relativePath.replace('\\', '/').split("/");
        if (parts.length != 3 || !parts[0].equals("packages")) {
            return false;
        }
        for (PackageInfo p : list(parts[1])) {
            if (p.path().equals(relativePath)) {
                return chunks.restore(p.name(), p.version(), p.sha256(), filesRoot.resolve(p.path()));
            }
        }
        return false;
    }

    /** Stores in the database the archives of packages kept only as files (stored before the database kept them). */
    public int storeMissingChunks() {
        int stored = 0;
        for (PackageInfo p : list(null)) {
            Path file = filesRoot.resolve(p.path());
            if (Files.isRegularFile(file) && !chunks.has(p.name(), p.version())) {
                jdbi.useTransaction(h -> chunks.write(h, p.name(), p.version(), file));
                stored++;
            }
        }
        return stored;
    }

    /** Stores an uploaded package; the same name and version is refused unless {@code force}. */
    public PackageInfo upload(InputStream body, boolean force) {
        Path incoming = receive(body);
        try {
            return store(incoming, force ? Replace.ALWAYS : Replace.NEVER, SOURCE_UPLOAD);
        } finally {
            deleteQuietly(incoming);
        }
    }

    /**
     * Imports a package fetched from a registry. Already stored with the same bytes: kept. Stored with other bytes:
     * refused, since a version must not change under the hosts that run it.
     */
    public PackageInfo importFrom(String registry, byte[] tgz) {
        Path incoming = receive(new ByteArrayInputStream(tgz));
        try {
            return store(incoming, Replace.IF_SAME, registry);
        } finally {
            deleteQuietly(incoming);
        }
    }

    /** Reads and checks a package without storing it. */
    /** Reads and checks a package held in memory, its templates' syntax included. */
    public static PackageArchive inspect(byte[] tgz) {
        PackageArchive archive;
        try {
            archive = PackageArchive.read(new ByteArrayInputStream(tgz));
        } catch (PackageException e) {
            throw invalid(e);
        }
        checkTemplateSyntax(() -> new ByteArrayInputStream(tgz), archive);
        return archive;
    }

    private interface Opener {
        InputStream open() throws IOException;
    }

    private enum Replace { NEVER, ALWAYS, IF_SAME }

    private PackageInfo store(Path incoming, Replace replace, String source) {
        PackageArchive archive;
        try (InputStream in = Files.newInputStream(incoming)) {
            archive = PackageArchive.read(in);
        } catch (PackageException e) {
            throw invalid(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        checkTemplateSyntax(() -> Files.newInputStream(incoming), archive);
        PackageMetadata m = archive.metadata();
        String version = Version.parse(m.version()).toString();
        String sha256 = sha256(incoming);
        Optional<PackageInfo> existing = find(m.name(), version);
        if (existing.isPresent()) {
            boolean same = existing.get().sha256().equals(sha256);
            if (replace == Replace.IF_SAME) {
                if (same) {
                    return existing.get();
                }
                throw DomainException.conflict("package_differs", "package " + m.name() + " " + version + " from " + source
                        + " differs from the stored one (sha256 " + existing.get().sha256() + ", from "
                        + existing.get().source() + "); delete the stored version or publish a new version");
            }
            if (replace == Replace.NEVER) {
                throw DomainException.conflict("package_exists", "package " + m.name() + " " + version
                        + " is already stored (sha256 " + existing.get().sha256() + "); upload with --force to replace it");
            }
        }
        String relative = relativePath(m.name(), version);
        Path target = filesRoot.resolve(relative);
        try {
            Files.createDirectories(target.getParent());
            Files.copy(incoming, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
        long size = fileSize(target);
        String metadataJson;
        try {
            metadataJson = Json.json().writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        jdbi.useTransaction(h -> {
            int updated = h.createUpdate("""
                            UPDATE package SET category = :category, description = :description, sha256 = :sha,
                                   size_bytes = :size, metadata = :metadata, notes = :notes, source = :source, uploaded_at = :now
                            WHERE name = :name AND version = :version""")
                    .bind("name", m.name()).bind("version", version).bind("category", m.category())
                    .bind("description", m.description()).bind("sha", sha256).bind("size", size)
                    .bind("metadata", metadataJson).bind("notes", archive.notes()).bind("source", source)
                    .bind("now", now).execute();
            if (updated == 0) {
                h.createUpdate("""
                                INSERT INTO package (name, version, category, description, sha256, size_bytes, metadata,
                                                     notes, source, uploaded_at)
                                VALUES (:name, :version, :category, :description, :sha, :size, :metadata, :notes, :source, :now)""")
                        .bind("name", m.name()).bind("version", version).bind("category", m.category())
                        .bind("description", m.description()).bind("sha", sha256).bind("size", size)
                        .bind("metadata", metadataJson).bind("notes", archive.notes()).bind("source", source)
                        .bind("now", now).execute();
            }
            chunks.write(h, m.name(), version, target);
        });
        return find(m.name(), version).orElseThrow();
    }

    public List<PackageInfo> list(String name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM package" + (name == null ? "" : " WHERE name = :name")
                        + " ORDER BY name, uploaded_at").bindMap(name == null ? java.util.Map.of() : java.util.Map.of("name", name))
                .map((rs, ctx) -> info(rs)).list());
    }

    public Optional<PackageInfo> find(String name, String version) {
        String normalized = normalized(version);
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM package WHERE name = :name AND version = :version")
                .bind("name", name).bind("version", normalized).map((rs, ctx) -> info(rs)).findOne());
    }

    public PackageInfo get(String name, String version) {
        return find(name, version).orElseThrow(() -> DomainException.notFound("package", name + " " + version));
    }

    /** The NOTES.j2 template of a stored package, or null. */
    public String notes(String name, String version) {
        return jdbi.withHandle(h -> h.createQuery("SELECT notes FROM package WHERE name = :name AND version = :version")
                .bind("name", name).bind("version", normalized(version)).mapTo(String.class).findOne().orElse(null));
    }

    /** Deletes a stored version; refused while an enabled addon is at that version. */
    public PackageInfo delete(String name, String version) {
        PackageInfo info = get(name, version);
        jdbi.useTransaction(h -> {
            if (h.createQuery("SELECT COUNT(*) FROM addon WHERE name = :name AND version = :version")
                    .bind("name", info.name()).bind("version", info.version()).mapTo(Long.class).one() > 0) {
                throw DomainException.conflict("package_in_use", "package " + name + " " + info.version()
                        + " is the enabled version of addon " + name + "; disable or upgrade the addon first");
            }
            List<Long> deployedBy = h.createQuery("SELECT DISTINCT subscription_id FROM deployment WHERE plugin = :name "
                            + "AND version = :version ORDER BY subscription_id")
                    .bind("name", info.name()).bind("version", info.version()).mapTo(Long.class).list();
            if (!deployedBy.isEmpty()) {
                throw DomainException.conflict("package_in_use", "package " + name + " " + info.version()
                        + " is deployed by subscription(s) " + deployedBy + "; upgrade or delete them first");
            }
            h.createUpdate("DELETE FROM package WHERE name = :name AND version = :version")
                    .bind("name", info.name()).bind("version", info.version()).execute();
            chunks.delete(h, info.name(), info.version());
        });
        deleteQuietly(filesRoot.resolve(info.path()));
        return info;
    }

    /** Every stored version as the resolver sees it (the store is also a registry, named "store"). */
    public List<Candidate> candidates() {
        return list(null).stream().map(p -> new Candidate(p.name(), Version.parse(p.version()), "store",
                p.metadata().dependencies(), p.metadata().system().get("drover"))).toList();
    }

    public byte[] read(String name, String version) {
        PackageInfo info = get(name, version);
        if (!Files.isRegularFile(filesRoot.resolve(info.path()))) {
            restoreFile(info.path());
        }
        try {
            return Files.readAllBytes(filesRoot.resolve(info.path()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A stored package file by its path under the fileserver root ({@code packages/<name>/<file>}). */
    public byte[] readFile(String relativePath) {
        Path packages = filesRoot.resolve("packages").normalize();
        Path file = filesRoot.resolve(relativePath).normalize();
        if (file.startsWith(packages) && !Files.exists(file)) {
            restoreFile(filesRoot.relativize(file).toString());
        }
        if (!file.startsWith(packages) || !Files.isRegularFile(file)) {
            throw DomainException.notFound("stored package file", relativePath);
        }
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where a package lives under the fileserver root (what agents ask for). */
    public static String relativePath(String name, String version) {
        return "packages/" + name + "/" + PackageArchive.fileName(name, version);
    }

    private static String normalized(String version) {
        Version v = Version.tryParse(version);
        return v == null ? version : v.toString();
    }

    private Path receive(InputStream body) {
        try {
            Path dir = filesRoot.resolve("packages").resolve(".incoming");
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, "upload-", ".tgz");
            try (OutputStream out = Files.newOutputStream(temp)) {
                byte[] buffer = new byte[65536];
                long total = 0;
                for (int n; (n = body.read(buffer)) > 0; ) {
                    total += n;
                    if (total > MAX_UPLOAD_BYTES) {
                        deleteQuietly(temp);
                        throw DomainException.tooLarge("too_large", "the package is larger than " + MAX_UPLOAD_BYTES
                                + " bytes");
                    }
                    out.write(buffer, 0, n);
                }
                if (total == 0) {
                    deleteQuietly(temp);
                    throw DomainException.badRequest("missing_body", "the request needs a package (.tgz) as its body");
                }
            }
            return temp;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot receive the package", e);
        }
    }

    /** Parses every config template of the package: a syntax error is refused now, not found on the first deploy. */
    private static void checkTemplateSyntax(Opener opener, PackageArchive archive) {
        java.util.Set<String> sources = new java.util.TreeSet<>();
        archive.metadata().configTemplates().forEach(t -> {
            if (t.source() != null) {
                sources.add(t.source());
            }
        });
        Map<String, String> texts;
        try (InputStream in = opener.open()) {
            texts = PackageArchive.texts(in, sources);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> problems = new java.util.ArrayList<>();
        for (String path : sources) {
            String text = texts.get(path);
            if (text != null) {
                SYNTAX.syntaxErrors(text).forEach(error -> problems.add("template " + path + ": " + error));
            }
        }
        if (!problems.isEmpty()) {
            throw invalid(new PackageException(problems));
        }
    }

    /** Only parses templates (its render time limit and caches are not used). */
    private static final io.drover.core.render.TemplateRenderer SYNTAX = new io.drover.core.render.TemplateRenderer();

    static DomainException invalid(PackageException e) {
        return DomainException.unprocessable("invalid_package", e.getMessage(), e.problems().stream()
                .map(p -> new io.drover.model.api.Problem.FieldError("package", p)).toList());
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return io.drover.core.Hashing.sha256(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a left-over temporary file is harmless
        }
    }

    private static PackageInfo info(ResultSet rs) throws SQLException {
        PackageMetadata metadata;
        try {
            metadata = Json.json().readValue(rs.getString("metadata"), PackageMetadata.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored metadata of " + rs.getString("name") + " cannot be read", e);
        }
        return new PackageInfo(rs.getString("name"), rs.getString("version"), rs.getString("category"),
                rs.getString("description"), rs.getString("sha256"), rs.getLong("size_bytes"), rs.getString("source"),
                SqlTime.read(rs, "uploaded_at"),
                relativePath(rs.getString("name"), rs.getString("version")), metadata);
    }
}
