package io.drover.server.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.drover.core.Hashing;
import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PackageArchive.SourceFile;
import io.drover.core.packages.Version;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.subscriptions.CopyStatus;
import io.drover.server.errors.DomainException;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;

/** The package store (rows on SQLite and on the real PostgreSQL, files in a temporary directory). */
class PackageStoreTest {
    @TempDir
    Path files;

    static byte[] pkg(String name, String version, String description, String template) {
        String metadata = """
                name: %s
                version: %s
                description: %s
                category: external
                os: [linux]
                cpu_arch: [x86_64]
                control: {start: ./start.sh, stop: ./start.sh}
                dependencies: [{name: libcompat, version: ">=1.0.0"}]
                system: {drover: ">=0.1.0"}
                config_templates: [{name: main, path: etc, source: templates/main.yaml.j2}]
                """.formatted(name, version, description);
        TreeMap<String, SourceFile> sources = new TreeMap<>();
        sources.put("metadata.yaml", new SourceFile("metadata.yaml", 0644, metadata.getBytes(StandardCharsets.UTF_8)));
        sources.put("templates/main.yaml.j2", new SourceFile("templates/main.yaml.j2", 0644, template.getBytes(StandardCharsets.UTF_8)));
        sources.put("start.sh", new SourceFile("start.sh", 0755, "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8)));
        sources.put("NOTES.j2", new SourceFile("NOTES.j2", 0644, ("notes of " + name).getBytes(StandardCharsets.UTF_8)));
        return PackageArchive.build(sources);
    }

    static byte[] pkg(String name, String version) {
        return pkg(name, version, "metrics", "port: {{ port }}\n");
    }

    static void assertRefused(Runnable action, DomainException.Kind kind, String code) {
        assertThatThrownBy(action::run).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.code()).isEqualTo(code);
        });
    }

    static void deleteFile(Path file) {
        try {
            Files.delete(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    PackageInfo upload(PackageStore store, byte[] tgz, boolean force) {
        return store.upload(new ByteArrayInputStream(tgz), force);
    }

    List<Path> incoming() throws IOException {
        try (var listed = Files.list(files.resolve("packages/.incoming"))) {
            return listed.toList();
        }
    }

    @OnBothDatabases
    void anUploadedPackageRoundTripsAndIsReadBack(String kind) throws IOException {
        byte[] tgz = pkg("exporter", "1.0.0");
        TestDatabases.on(kind, db -> {
            PackageStore store = new PackageStore(db.jdbi(), files, Clock.systemUTC());
            PackageInfo info = upload(store, tgz, false);
            assertThat(info).usingRecursiveComparison().ignoringFields("uploadedAt").isEqualTo(new PackageInfo("exporter", "1.0.0",
                    "external", "metrics", Hashing.sha256(tgz), tgz.length, PackageStore.SOURCE_UPLOAD, null,
                    "packages/exporter/exporter-1.0.0.tgz", PackageArchive.read(new ByteArrayInputStream(tgz)).metadata()));
            assertThat(info.uploadedAt()).isNotNull();
            assertThat(store.get("exporter", "1.0.0")).isEqualTo(info);
            assertThat(store.find("exporter", "v1.0")).as("versions are normalized").contains(info);
            assertThat(store.find("exporter", "1.0.1")).isEmpty();
            assertThat(store.find("other", "1.0.0")).isEmpty();
            assertRefused(() -> store.get("exporter", "2.0.0"), DomainException.Kind.NOT_FOUND, "not_found");

            assertThat(store.read("exporter", "1.0")).isEqualTo(tgz);
            assertThat(store.readFile(info.path())).isEqualTo(tgz);
            assertThat(files.resolve(info.path())).hasBinaryContent(tgz);
            for (String outside : List.of("packages/../secret.key", "packages/exporter/none.tgz", "packages", "../etc/passwd")) {
                assertRefused(() -> store.readFile(outside), DomainException.Kind.NOT_FOUND, "not_found");
            }
            assertThat(store.notes("exporter", "1.0.0")).isEqualTo("notes of exporter");
            assertThat(store.notes("exporter", "9.9.9")).isNull();
        });
        assertThat(incoming()).as("no temporary file is left").isEmpty();
    }

    @OnBothDatabases
    void aStoredVersionIsReplacedOnlyWhenForcedAndImportsKeepIdenticalBytes(String kind) {
        TestDatabases.on(kind, db -> {
            PackageStore store = new PackageStore(db.jdbi(), files, Clock.systemUTC());
            upload(store, pkg("exporter", "1.0.0"), false);
            assertRefused(() -> upload(store, pkg("exporter", "1.0.0"), false), DomainException.Kind.CONFLICT, "package_exists");
            byte[] changed = pkg("exporter", "1.0.0", "changed", "port: {{ port }}\n");
            PackageInfo forced = upload(store, changed, true);
            assertThat(forced.description()).isEqualTo("changed");
            assertThat(forced.sha256()).isEqualTo(Hashing.sha256(changed));
            assertThat(store.read("exporter", "1.0.0")).isEqualTo(changed);

            assertThat(store.importFrom("hub", changed)).as("same bytes: kept as stored").isEqualTo(forced);
            assertRefused(() -> store.importFrom("hub", pkg("exporter", "1.0.0")), DomainException.Kind.CONFLICT, "package_differs");
            assertThat(store.importFrom("hub", pkg("exporter", "1.1.0")).source()).isEqualTo("hub");
            upload(store, pkg("agentd", "2.0.0"), false);

            assertThat(store.list(null)).extracting(PackageInfo::name, PackageInfo::version, PackageInfo::source).containsExactly(
                    tuple("agentd", "2.0.0", "upload"), tuple("exporter", "1.0.0", "upload"), tuple("exporter", "1.1.0", "hub"));
            assertThat(store.list("exporter")).extracting(PackageInfo::version).containsExactly("1.0.0", "1.1.0");
            assertThat(store.list("none")).isEmpty();
            assertThat(store.candidates()).first().usingRecursiveComparison().isEqualTo(new Candidate("agentd", Version.parse("2.0.0"),
                    "store", List.of(new PackageMetadata.Dependency("libcompat", ">=1.0.0")), ">=0.1.0"));
            assertThat(store.candidates()).extracting(c -> c.version().toString()).containsExactly("2.0.0", "1.0.0", "1.1.0");
        });
    }

    @OnBothDatabases
    void aBadPackageStoresNothing(String kind) throws IOException {
        TestDatabases.on(kind, db -> {
            PackageStore store = new PackageStore(db.jdbi(), files, Clock.systemUTC());
            byte[] badTemplate = pkg("exporter", "1.0.0", "metrics", "{% if port %}never closed\n");
            assertRefused(() -> upload(store, badTemplate, false), DomainException.Kind.INVALID, "invalid_package");
            assertRefused(() -> upload(store, "not a tgz".getBytes(StandardCharsets.UTF_8), true),
                    DomainException.Kind.INVALID, "invalid_package");
            assertRefused(() -> store.importFrom("hub", new byte[] {31, -117, 8}), DomainException.Kind.INVALID, "invalid_package");
            assertRefused(() -> upload(store, new byte[0], false), DomainException.Kind.BAD_REQUEST, "missing_body");
            assertThatThrownBy(() -> PackageStore.inspect(badTemplate)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.errors()).singleElement().satisfies(f -> assertThat(f.message()).startsWith("template templates/main.yaml.j2")));
            assertThat(PackageStore.inspect(pkg("exporter", "1.0.0")).metadata().name()).isEqualTo("exporter");
            byte[] random = pkg("exporter", "1.0.0", "metrics", "port: {{ port }}\nid: {{ [1, 2]|random }}\n");
            assertThatThrownBy(() -> upload(store, random, false)).isInstanceOfSatisfying(DomainException.class, e -> {
                assertThat(e.kind()).as("422").isEqualTo(DomainException.Kind.INVALID);
                assertThat(e.errors()).singleElement().satisfies(f -> assertThat(f.message())
                        .startsWith("template templates/main.yaml.j2: line 2: 'random' is not available: templates are deterministic"));
            });
            assertThat(store.list(null)).isEmpty();
        });
        assertThat(incoming()).isEmpty();
        assertThat(files.resolve("packages/exporter")).doesNotExist();
    }

    @OnBothDatabases
    void aVersionInUseIsNotDeleted(String kind) {
        TestDatabases.on(kind, db -> {
            PackageStore store = new PackageStore(db.jdbi(), files, Clock.systemUTC());
            PackageInfo info = upload(store, pkg("exporter", "1.0.0"), false);
            assertRefused(() -> store.delete("exporter", "1.0.1"), DomainException.Kind.NOT_FOUND, "not_found");

            db.jdbi().useHandle(h -> h.execute("INSERT INTO addon (name, version, registry, params, enabled_at, updated_at) "
                    + "VALUES ('exporter', '1.0.0', 'hub', '{}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"));
            assertRefused(() -> store.delete("exporter", "1.0.0"), DomainException.Kind.CONFLICT, "package_in_use");
            db.jdbi().useHandle(h -> h.execute("DELETE FROM addon"));

            long sub = db.jdbi().withHandle(h -> h.createUpdate("INSERT INTO subscription (name, bk_biz_id, object_type, node_type, "
                            + "spec, enabled, created_at, updated_at) VALUES ('s', 2, 'HOST', 'INSTANCE', '{}', TRUE, "
                            + "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)").executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
            DeploymentStore deployments = new DeploymentStore(db.jdbi(), Clock.systemUTC());
            deployments.save(new DeploymentStore.Row(sub, "host|1", "exporter", 1, 2, "exporter", "g", "1.0.0", CopyStatus.RUNNING,
                    Map.of(), null, null));
            assertThatThrownBy(() -> store.delete("exporter", "1.0.0")).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.getMessage()).contains("subscription(s) [" + sub + "]"));
            deployments.remove(sub, "host|1", "exporter", 1);

            assertThat(store.delete("exporter", "1.0")).isEqualTo(info);
            assertThat(store.find("exporter", "1.0.0")).isEmpty();
            assertThat(files.resolve(info.path())).doesNotExist();
        });
    }

    @OnBothDatabases
    void aServerWithoutThePackageFileRestoresItFromTheDatabaseAndServesIt(String kind) throws IOException {
        byte[] big = new byte[PackageChunkStore.CHUNK * 2 + 17]; // three chunks
        new java.util.Random(7).nextBytes(big);
        TreeMap<String, SourceFile> sources = new TreeMap<>();
        sources.put("metadata.yaml", new SourceFile("metadata.yaml", 0644, """
                name: bigone
                version: 1.0.0
                category: external
                os: [linux]
                cpu_arch: [x86_64]
                control: {start: ./start.sh, stop: ./start.sh}
                """.getBytes(StandardCharsets.UTF_8)));
        sources.put("start.sh", new SourceFile("start.sh", 0755, big));
        byte[] tgz = PackageArchive.build(sources);
        Path otherServer = files.resolve("other");
        TestDatabases.on(kind, db -> {
            PackageStore store = new PackageStore(db.jdbi(), files.resolve("first"), Clock.systemUTC());
            PackageInfo info = upload(store, tgz, false);
            // another server of the cluster: the same database, its own (empty) file directory
            PackageStore elsewhere = new PackageStore(db.jdbi(), otherServer, Clock.systemUTC());
            io.drover.server.files.FileServer served = new io.drover.server.files.FileServer(otherServer, elsewhere::restoreFile);
            assertThat(otherServer.resolve(info.path())).doesNotExist();
            assertThat(served.hash(info.path()).get("hsum")).isEqualTo(info.sha256());
            assertThat(otherServer.resolve(info.path())).hasBinaryContent(tgz);
            deleteFile(otherServer.resolve(info.path()));
            assertThat(elsewhere.read("bigone", "1.0.0")).isEqualTo(tgz);
            // names that are no stored package restore nothing
            assertThat(served.resolve("packages/bigone/bigone-9.9.9.tgz")).isEmpty();
            assertThat(served.resolve("packages/../../etc/passwd")).isEmpty();
            assertThat(elsewhere.restoreFile("packages/bigone")).isFalse();

            store.delete("bigone", "1.0.0");
            deleteFile(otherServer.resolve(info.path()));
            assertThat(served.resolve(info.path())).as("deleted with its package").isEmpty();
        });
    }

    @OnBothDatabases
    void packagesStoredOnlyAsFilesAreCopiedIntoTheDatabaseOnce(String kind) throws IOException {
        TestDatabases.on(kind, db -> {
            PackageStore store = new PackageStore(db.jdbi(), files, Clock.systemUTC());
            PackageInfo info = upload(store, pkg("exporter", "1.0.0"), false);
            db.jdbi().useHandle(h -> h.execute("DELETE FROM package_chunk")); // as before the database kept archives
            assertThat(store.storeMissingChunks()).isEqualTo(1);
            assertThat(store.storeMissingChunks()).isZero();
            Path other = files.resolve("other");
            assertThat(new PackageStore(db.jdbi(), other, Clock.systemUTC()).restoreFile(info.path())).isTrue();
            assertThat(other.resolve(info.path())).hasSameBinaryContentAs(files.resolve(info.path()));
        });
    }
}
