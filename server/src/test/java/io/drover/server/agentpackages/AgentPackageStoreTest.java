package io.drover.server.agentpackages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.Hashing;
import io.drover.core.agents.AgentPackageName;
import io.drover.core.testing.AgentPackages;
import io.drover.model.agents.AgentPackageInfo;
import io.drover.model.auth.Role;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/** Agent packages on SQLite and on the real PostgreSQL: rows, bytes in chunks, two servers sharing a database. */
class AgentPackageStoreTest {
    static final Principal ADMIN = new Principal(1, "admin", Role.ADMIN, Set.of());
    static final AgentPackageName X86 = new AgentPackageName("1.2.0", "x86_64");

    @TempDir
    Path dir;

    /** A package larger than a few chunks: its launcher carries incompressible bytes. */
    static byte[] bigPackage(String version, long seed) {
        byte[] noise = new byte[(int) (2.5 * AgentPackageStore.CHUNK)];
        new Random(seed).nextBytes(noise);
        return AgentPackages.of(version, "x86_64", "#!/bin/sh\n# " + java.util.HexFormat.of().formatHex(noise) + "\n");
    }

    static Path write(Path dir, String name, byte[] bytes) {
        try {
            return Files.write(dir.resolve(name), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @OnBothDatabases
    void rowsAndChunksAreWrittenOnceAndRestoredOnlyWithTheirSha256(String kind) {
        TestDatabases.on(kind, db -> {
            AgentPackageStore store = new AgentPackageStore(db.jdbi());
            byte[] tgz = bigPackage("1.2.0", 1);
            Path file = write(dir, "in.tar.gz", tgz);
            java.time.OffsetDateTime at = java.time.OffsetDateTime.parse("2026-12-01T10:00:00Z");

            assertThat(store.insertIfAbsent(X86, Hashing.sha256(tgz), tgz.length, at, "admin", file)).isTrue();
            assertThat(store.insertIfAbsent(X86, "0".repeat(64), 1, at, "other", file)).as("stored already").isFalse();

            AgentPackageInfo info = store.find(X86).orElseThrow();
            assertThat(info).isEqualTo(new AgentPackageInfo("1.2.0", "linux", "x86_64", "drover-agent-1.2.0-linux-x86_64.tar.gz",
                    Hashing.sha256(tgz), tgz.length, info.uploadedAt(), "admin"));
            assertThat(info.uploadedAt().toInstant()).isEqualTo(at.toInstant());
            assertThat(store.list()).containsExactly(info);
            assertThat(store.find(new AgentPackageName("1.2.0", "aarch64"))).isEmpty();
            long chunks = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM agent_package_chunk").mapTo(Long.class).one());
            assertThat(chunks).as("2.5 chunks").isEqualTo(3L);

            Path restored = dir.resolve("restored");
            try {
                assertThat(store.restore(X86, info.sha256(), restored)).isTrue();
                assertThat(Files.readAllBytes(restored)).isEqualTo(tgz);
                assertThat(store.restore(X86, "f".repeat(64), dir.resolve("wrong"))).as("other sha256").isFalse();
                assertThat(dir.resolve("wrong")).doesNotExist();
                assertThat(store.delete(X86)).isTrue();
                assertThat(store.delete(X86)).isFalse();
                assertThat(store.restore(X86, info.sha256(), dir.resolve("gone"))).as("no chunks left").isFalse();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(store.list()).isEmpty();
        });
    }

    @OnBothDatabases
    void aVersionNeverChangesItsBytesAndAServerLackingTheFileRestoresIt(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z").toEpochMilli());
            AgentPackageService first = new AgentPackageService(new AgentPackageStore(db.jdbi()), dir.resolve("one"), dir.resolve("files-one"), 64L << 20, clock);
            AgentPackageService second = new AgentPackageService(new AgentPackageStore(db.jdbi()), dir.resolve("two"), dir.resolve("files-two"), 64L << 20, clock);
            byte[] tgz = bigPackage("1.2.0", 2);

            AgentPackageService.Stored stored = first.upload(ADMIN, new ByteArrayInputStream(tgz), "drover-agent-1.2.0-linux-x86_64.tar.gz");
            assertThat(stored.created()).isTrue();
            assertThat(stored.info().sha256()).isEqualTo(Hashing.sha256(tgz));
            assertThat(stored.info().uploadedBy()).isEqualTo("admin");
            assertThat(first.upload(ADMIN, new ByteArrayInputStream(tgz), null).created()).as("the same bytes again").isFalse();
            assertThatThrownBy(() -> second.upload(ADMIN, new ByteArrayInputStream(bigPackage("1.2.0", 3)), null))
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.kind()).isEqualTo(DomainException.Kind.CONFLICT);
                        assertThat(e.code()).isEqualTo("agent_package_exists");
                        assertThat(e.getMessage()).contains("sha256 " + Hashing.sha256(tgz)).contains("by admin");
                    });

            try {
                AgentPackageService.Download there = second.open("latest", "x86_64");
                assertThat(there.file()).startsWith(dir.resolve("two"));
                assertThat(Files.readAllBytes(there.file())).as("restored from the database").isEqualTo(tgz);
                Files.write(there.file(), new byte[tgz.length]); // the file changed under the server: same size, other bytes
                AgentPackageService fresh = new AgentPackageService(new AgentPackageStore(db.jdbi()), dir.resolve("two"), dir.resolve("files-two"), 64L << 20, clock);
                assertThat(Files.readAllBytes(fresh.open("1.2.0", "x86_64").file())).isEqualTo(tgz);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(first.publish(stored.info())).isEqualTo("agent-packages/drover-agent-1.2.0-linux-x86_64.tar.gz");
            Path published = dir.resolve("files-one/agent-packages/drover-agent-1.2.0-linux-x86_64.tar.gz");
            assertThat(published).exists();
            assertThat(second.restoreFile("agent-packages/drover-agent-1.2.0-linux-x86_64.tar.gz")).as("stored: restored").isTrue();
            assertThat(first.delete("1.2.0", "x86_64").sha256()).isEqualTo(Hashing.sha256(tgz));
            assertThat(dir.resolve("one/drover-agent-1.2.0-linux-x86_64.tar.gz")).doesNotExist();
            assertThat(published).as("the copy a fleet upgrade placed is withdrawn").doesNotExist();
            try {
                Files.delete(dir.resolve("files-two/agent-packages/drover-agent-1.2.0-linux-x86_64.tar.gz"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(second.restoreFile("agent-packages/drover-agent-1.2.0-linux-x86_64.tar.gz")).as("no longer stored").isFalse();
            assertThat(dir.resolve("files-two/agent-packages/drover-agent-1.2.0-linux-x86_64.tar.gz")).doesNotExist();
            assertThatThrownBy(() -> second.open("1.2.0", "x86_64")).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.kind()).isEqualTo(DomainException.Kind.NOT_FOUND));
            try (var left = Files.list(dir.resolve("one/.incoming"))) {
                assertThat(left.toList()).as("no temporary file left").isEmpty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
