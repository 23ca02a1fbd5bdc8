package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.agent.DroverAgent;
import io.drover.agent.journal.Journal;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.SaltMinion;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded database on a file system that fills up (a small tmpfs, mounted for the test, so it needs root): writes
 * are refused with 503 storage_full while the disk is full, /readyz says so, agents' sign-ins and returns neither kill
 * the server nor get lost, and once space is freed (a filler file on the same tmpfs is deleted) the same server takes
 * writes again; every acknowledged write is there, also after a restart, and the file passes integrity_check.
 */
class FullDiskTest {
    static final int DISK_MIB = 48;
    /** What the filler leaves free: more than /readyz's limit, so that the API's own writes fill the rest. */
    static final long LEFT_FREE = 6L << 20;
    static final long BIZ = 7;

    @TempDir
    Path roots;

    @Test
    void aFullDiskRefusesWritesClearlyLosesNothingAndRecoversWithoutARestart() throws Exception {
        Path disk = Files.createTempDirectory("drover-full-disk");
        mountTmpfs(disk);
        try {
            fillAndFree(disk);
        } finally {
            Process umount = new ProcessBuilder("umount", disk.toString()).inheritIO().start();
            if (umount.waitFor() != 0) {
                new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start().waitFor();
            }
            Files.deleteIfExists(disk);
        }
    }

    void fillAndFree(Path disk) throws Exception {
        Path data = disk.resolve("data");
        Map<Setting, String> settings = Map.of(Setting.AUTO_ACCEPT, "disk-*");
        Fleet fleet = new Fleet(TestServer.start(data, settings), roots);
        String token = fleet.server.adminToken();
        Set<String> acknowledged = new TreeSet<>();
        Set<String> refused = new TreeSet<>();
        Path filler = disk.resolve("filler");
        Path gate = roots.resolve("gate");
        String slowJid;
        try {
            DroverAgent first = fleet.agent("disk-1");
            await().atMost(Duration.ofSeconds(20)).until(() -> fleet.drover("run", "disk-1", "test.ping", "--timeout", "3").exit() == 0);
            assertThat(fleet.server.post("/api/v1/businesses", token, Map.of("bk_biz_id", BIZ, "bk_biz_name", "disk")).status())
                    .isEqualTo(201);
            // a job whose return comes once the disk is full
            slowJid = fleet.server.post("/api/v1/jobs", token, Map.of("tgt", "disk-1", "fun", "cmd.run", "arg",
                    List.of("while [ ! -e " + gate + " ]; do sleep 0.1; done; echo stored-after-the-disk-was-full"),
                    "timeout", 600)).body().path("jid").asText();
            assertThat(slowJid).isNotEmpty();
            assertThat(ready(fleet).path("database").asText()).isEqualTo("ok");

            fill(filler, disk, LEFT_FREE);
            int i = 0;
            int consecutiveRefusals = 0;
            while (consecutiveRefusals < 20) {
                assertThat(i).as("writes before the disk was full").isLessThan(100_000);
                String name = "s-" + i++;
                TestServer.Response created = fleet.server.post("/api/v1/sets", token, Map.of("bk_biz_id", BIZ, "bk_set_name", name));
                if (created.status() == 201) {
                    acknowledged.add(name);
                    consecutiveRefusals = 0;
                    continue;
                }
                assertThat(created.status()).as("answer to %s: %s", name, created.text()).isEqualTo(503);
                assertStorageFull(created);
                refused.add(name);
                consecutiveRefusals++;
            }
            assertThat(acknowledged).as("sets written before the disk was full").hasSizeGreaterThan(10);
            System.out.printf("full disk: %d sets acknowledged, then %d refused with 503 storage_full; %d bytes free%n",
                    acknowledged.size(), refused.size(), Files.getFileStore(disk).getUsableSpace());

            // /readyz names the full disk; reads still work
            JsonNode ready = ready(fleet);
            assertThat(ready.path("status").asText()).isEqualTo("database disk full");
            assertThat(ready.path("database").asText()).isEqualTo("disk full");
            assertThat(fleet.server.get("/readyz", null).status()).isEqualTo(503);
            assertThat(fleet.server.get("/api/v1/sets?bk_biz_id=" + BIZ, token).status()).isEqualTo(200);

            // the agent's return arrives while nothing can be stored; a new agent signs in
            Files.writeString(gate, "go");
            DroverAgent second = fleet.agent("disk-2");
            Journal firstJournal = new Journal(roots.resolve("disk-1/var/lib/drover-agent"));
            await("the job ran and its return is not acknowledged").atMost(Duration.ofSeconds(20))
                    .until(() -> firstJournal.unsent().contains(slowJid));
            assertThat(fleet.server.post("/api/v1/sets", token, Map.of("bk_biz_id", BIZ, "bk_set_name", "still-full")).status())
                    .isEqualTo(503);
            refused.add("still-full");

            // space returns: the same server takes writes again
            Files.delete(filler);
            long freed = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).until(() -> fleet.server.get("/readyz", null).status() == 200);
            assertThat(ready(fleet).path("database").asText()).isEqualTo("ok");
            for (int j = 0; j < 50; j++) {
                String name = "after-" + j;
                TestServer.Response created = fleet.server.post("/api/v1/sets", token, Map.of("bk_biz_id", BIZ, "bk_set_name", name));
                assertThat(created.status()).as("write %s after space returned: %s", name, created.text()).isEqualTo(201);
                acknowledged.add(name);
            }
            // the return sent while the disk was full is stored (the agent sends it again), and the new agent is in
            await().atMost(Duration.ofSeconds(60)).until(() -> fleet.server.get("/api/v1/jobs/" + slowJid, token).body()
                    .path("returns").path("disk-1").path("ret").asText().equals("stored-after-the-disk-was-full"));
            await().atMost(Duration.ofSeconds(60)).until(() -> second.state() == SaltMinion.State.CONNECTED
                    && fleet.drover("run", "disk-2", "test.ping", "--timeout", "3").exit() == 0);
            System.out.printf("full disk: space freed; the deferred return stored and the new agent in %d ms%n",
                    (System.nanoTime() - freed) / 1_000_000);
            assertThat(first.state()).isEqualTo(SaltMinion.State.CONNECTED);
            assertSets(fleet.server, token, acknowledged, refused);
        } finally {
            fleet.close();
            Files.deleteIfExists(filler);
        }

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("drover.db"));
             ResultSet rs = c.createStatement().executeQuery("PRAGMA integrity_check")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("ok");
        }
        try (TestServer again = TestServer.start(data, settings)) {
            assertSets(again, again.adminToken(), acknowledged, refused);
            assertThat(again.get("/api/v1/jobs/" + slowJid, again.adminToken()).body().path("returns").path("disk-1")
                    .path("ret").asText()).isEqualTo("stored-after-the-disk-was-full");
        }
    }

    /** Every acknowledged set is stored, and none of those refused with "nothing of this request was stored". */
    static void assertSets(TestServer server, String token, Set<String> acknowledged, Set<String> refused) {
        Set<String> stored = new TreeSet<>();
        for (JsonNode set : server.get("/api/v1/sets?bk_biz_id=" + BIZ, token).body()) {
            stored.add(set.path("bk_set_name").asText());
        }
        Set<String> lost = new TreeSet<>(acknowledged);
        lost.removeAll(stored);
        assertThat(lost).as("acknowledged sets missing").isEmpty();
        Set<String> storedThoughRefused = new TreeSet<>(refused);
        storedThoughRefused.retainAll(stored);
        assertThat(storedThoughRefused).as("sets answered 503 'nothing was stored' that are stored").isEmpty();
    }

    static void assertStorageFull(TestServer.Response refused) {
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.body().path("code").asText()).isEqualTo("storage_full");
        assertThat(refused.body().path("status").asInt()).isEqualTo(503);
        assertThat(refused.text()).doesNotContain("Exception").doesNotContain("at io.").doesNotContain("SQLITE");
    }

    static JsonNode ready(Fleet fleet) {
        return fleet.server.get("/readyz", null).body();
    }

    /** Writes {@code filler} until its file system has less than {@code leave} bytes free. */
    static void fill(Path filler, Path disk, long leave) throws IOException {
        byte[] chunk = new byte[64 << 10];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (Files.getFileStore(disk).getUsableSpace() > leave + chunk.length) {
                out.write(chunk);
                out.flush();
            }
        }
    }

    /** Mounts a tmpfs of {@value #DISK_MIB} MiB at {@code dir}: needs root; in CI it must work. */
    static void mountTmpfs(Path dir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("mount", "-t", "tmpfs", "-o", "size=" + DISK_MIB + "m", "tmpfs", dir.toString()));
        Process mount = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes());
        boolean mounted = mount.waitFor() == 0;
        if (!mounted) {
            Files.deleteIfExists(dir);
            String why = "the full-disk test mounts a tmpfs, which failed (it needs root): " + out.strip();
            if (System.getenv("CI") != null) {
                throw new AssertionError(why);
            }
            Assumptions.abort(why + "; skipped");
        }
    }
}
