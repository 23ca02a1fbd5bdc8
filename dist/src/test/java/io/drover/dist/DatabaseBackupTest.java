package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** drover db backup: a consistent copy while the server writes, and the documented restore. */
class DatabaseBackupTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
    }

    static Run drover(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
        try {
            int exit = Main.run(args);
            return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void aBackupTakenWhileTheServerWritesHoldsEveryAcknowledgedWriteAndRestores() throws Exception {
        Path data = dir.resolve("data");
        Path backup = dir.resolve("drover-backup.db");
        Set<String> beforeBackup = ConcurrentHashMap.newKeySet();
        try (TestServer server = TestServer.start(data, Map.of())) {
            String token = server.adminToken();
            assertThat(server.post("/api/v1/businesses", token, Map.of("bk_biz_id", 9, "bk_biz_name", "kept")).status()).isEqualTo(201);
            AtomicBoolean writing = new AtomicBoolean(true);
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Thread writer = Thread.ofVirtual().start(() -> {
                for (int i = 0; writing.get(); i++) {
                    if (server.post("/api/v1/sets", token, Map.of("bk_biz_id", 9, "bk_set_name", "s" + i)).status() == 201) {
                        acknowledged.add("s" + i);
                    }
                }
            });
            org.awaitility.Awaitility.await().until(() -> acknowledged.size() >= 20);
            beforeBackup.addAll(acknowledged);
            Run run = drover("db", "backup", backup.toString(), "--data-dir", data.toString());
            writing.set(false);
            writer.join();
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("integrity ok");
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(backup))).isEqualTo("rw-------");

            Run again = drover("db", "backup", backup.toString(), "--data-dir", data.toString());
            assertThat(again.exit()).isEqualTo(1);
            assertThat(again.err()).contains("exists");
        }
        Run missing = drover("db", "backup", dir.resolve("other.db").toString(), "--data-dir", dir.resolve("nowhere").toString());
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("no embedded database");

        // The documented restore: stopped server, WAL files deleted, the backup copied over drover.db.
        Files.deleteIfExists(data.resolve("drover.db-wal"));
        Files.deleteIfExists(data.resolve("drover.db-shm"));
        Files.copy(backup, data.resolve("drover.db"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (TestServer restored = TestServer.start(data, Map.of())) {
            Set<String> names = new java.util.HashSet<>();
            restored.get("/api/v1/sets?bk_biz_id=9", restored.adminToken()).body()
                    .forEach(set -> names.add(set.path("bk_set_name").asText()));
            assertThat(names).containsAll(beforeBackup);
        }
    }

    @Test
    void aSecondServerOnTheSameDataDirectoryIsRefusedWithOneLine() throws Exception {
        Path data = dir.resolve("data");
        try (TestServer server = TestServer.start(data, Map.of())) {
            Run second = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                    () -> drover("server", "--data-dir", data.toString(), "--port", "0", "--salt-publish-port",
                            Integer.toString(TestServer.freePort()), "--salt-request-port", Integer.toString(TestServer.freePort())));
            assertThat(second.exit()).isEqualTo(1);
            assertThat(second.err()).contains("is in use by another Drover server").doesNotContain("Exception");
            assertThat(server.get("/readyz", "").status()).isEqualTo(200);
        }
    }
}
