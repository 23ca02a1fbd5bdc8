package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import io.drover.server.testing.TestDatabases;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No acknowledged write is lost when the server is killed: a real server process under write load (four writers
 * creating sets, each acknowledged with 201 and audited, and a real agent answering jobs whose returns are read back)
 * is killed with SIGKILL at a random moment, again and again; after every restart every acknowledged set, its audit
 * row and every return that was read are there. On the embedded SQLite store {@value #SQLITE_ROUNDS} kills, with
 * {@code PRAGMA integrity_check} on the file after each; on PostgreSQL {@value #POSTGRES_ROUNDS}.
 */
class KillRestartDurabilityTest {
    static final int SQLITE_ROUNDS = 50;
    static final int POSTGRES_ROUNDS = 10;
    static final int WRITERS = 4;
    static final String AGENT = "durable-1";

    @TempDir
    Path dir;
    final HttpClient http = HttpClient.newHttpClient();
    int publishPort;
    int requestPort;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    Process start(int port, List<String> database) throws IOException {
        return start(port, database, Files.exists(classArchive()) ? "-XX:SharedArchiveFile=" + classArchive() : "-Xshare:auto");
    }

    Process start(int port, List<String> database, String classSharing) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
                // the servers of this test live a second or two: C1 alone starts them sooner on a small machine
                "-XX:TieredStopAtLevel=1", classSharing, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "server", "--port", Integer.toString(port),
                "--data-dir", dir.resolve("data").toString(), "--salt-publish-port", Integer.toString(publishPort),
                "--salt-request-port", Integer.toString(requestPort), "--auto-accept", AGENT));
        command.addAll(database);
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile())).start();
    }

    Path classArchive() {
        return dir.resolve("server-classes.jsa");
    }

    /**
     * Runs one server that stops cleanly, so that the JVM writes the classes it loaded to a class-data archive: the
     * servers of the kill loop map it instead of loading and verifying their classes again (each start is most of a
     * round). Without the archive they start as before.
     */
    void writeClassArchive(int port, List<String> database) throws Exception {
        Process server = start(port, database, "-XX:ArchiveClassesAtExit=" + classArchive());
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> Files.exists(dir.resolve("data/admin.token"))
                && send("GET", port, "/readyz", "", null).statusCode() == 200);
        String token = Files.readString(dir.resolve("data/admin.token")).strip();
        send("GET", port, "/api/v1/sets?bk_biz_id=9", token, null);
        auditedSetCreations(port, token);
        server.destroy(); // SIGTERM: an orderly exit, which writes the archive
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }

    Process startAgent() throws IOException {
        List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "--id", AGENT,
                "--master", "127.0.0.1:" + requestPort, "--publish-port", Integer.toString(publishPort),
                "--root", dir.resolve("agent").toString());
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile())).start();
    }

    HttpResponse<String> send(String method, int port, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Runs the kill loop; {@code afterKill} looks at the database while no server runs. */
    void killedAgainAndAgain(int rounds, List<String> database, Runnable afterKill) throws Exception {
        publishPort = freePort();
        requestPort = freePort();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> answered = ConcurrentHashMap.newKeySet();
        int port = freePort();
        Process agent = null;
        writeClassArchive(port, database);
        try {
            for (int round = 0; round < rounds; round++) {
                Process server = start(port, database);
                try {
                    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> Files.exists(dir.resolve("data/admin.token"))
                            && send("GET", port, "/readyz", "", null).statusCode() == 200);
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    System.out.println("the server of round " + round + " is not ready after 120 s (alive: " + server.isAlive()
                            + "); /readyz: " + readyz(port));
                    AgentProcess.printTail(dir.resolve("server.log"));
                    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    throw e;
                }
                String token = Files.readString(dir.resolve("data/admin.token")).strip();
                if (round == 0) {
                    assertThat(send("POST", port, "/api/v1/businesses", token, "{\"bk_biz_id\": 9, \"bk_biz_name\": \"durable\"}")
                            .statusCode()).isEqualTo(201);
                    agent = startAgent();
                }
                if (round % 5 == 0) {
                    // every fifth round starts once the agent answers again, so that kills also land among its returns
                    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> answer(port, token) != null);
                }
                // Everything acknowledged before this restart is there.
                Set<String> stored = storedSets(port, token);
                Set<String> lost = new TreeSet<>(acknowledged);
                lost.removeAll(stored);
                assertThat(lost).as("acknowledged sets lost after kill -9 number %d", round).isEmpty();
                assertThat(auditedSetCreations(port, token)).as("audit rows of acknowledged sets after kill -9 number %d", round)
                        .isGreaterThanOrEqualTo(acknowledged.size());
                for (String jid : answered) {
                    assertThat(send("GET", port, "/api/v1/jobs/" + jid, token, null).body())
                            .as("the return of job %s, read before kill -9 number %d", jid, round).contains("\"" + AGENT + "\"");
                }

                AtomicBoolean writing = new AtomicBoolean(true);
                int r = round;
                List<Thread> writers = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++) {
                    int writer = w;
                    writers.add(Thread.ofVirtual().start(() -> {
                        for (int i = 0; writing.get(); i++) {
                            String name = "r" + r + "-w" + writer + "-" + i;
                            try {
                                if (send("POST", port, "/api/v1/sets", token, "{\"bk_biz_id\": 9, \"bk_set_name\": \"" + name + "\"}")
                                        .statusCode() == 201) {
                                    acknowledged.add(name);
                                }
                            } catch (Exception killed) {
                                return;
                            }
                        }
                    }));
                }
                writers.add(Thread.ofVirtual().start(() -> {
                    while (writing.get()) {
                        try {
                            String jid = answer(port, token);
                            if (jid != null) {
                                answered.add(jid);
                            }
                        } catch (Exception killed) {
                            return;
                        }
                    }
                }));
                // the kill lands after a random number of acknowledged writes, wherever the server then is
                int killAfter = acknowledged.size() + ThreadLocalRandom.current().nextInt(5, 80);
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= killAfter);
                server.destroyForcibly(); // SIGKILL
                assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
                writing.set(false);
                for (Thread t : writers) {
                    t.join();
                }
                afterKill.run();
            }
            assertThat(acknowledged).as("writes acknowledged over all rounds").hasSizeGreaterThan(rounds * 10);
            assertThat(answered).as("returns read over all rounds").hasSizeGreaterThanOrEqualTo(rounds / 5);
            System.out.printf("%d kills: %d sets acknowledged, %d returns read, none lost%n", rounds, acknowledged.size(), answered.size());
            Process last = start(port, database);
            try {
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> send("GET", port, "/readyz", "", null).statusCode() == 200);
                String token = Files.readString(dir.resolve("data/admin.token")).strip();
                assertThat(storedSets(port, token)).containsAll(acknowledged);
            } finally {
                last.destroyForcibly();
                last.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            if (agent != null) {
                agent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Runs test.ping on the agent; its job id once the agent's return could be read, else null. */
    String answer(int port, String token) throws Exception {
        HttpResponse<String> started = send("POST", port, "/api/v1/jobs", token,
                "{\"tgt\": \"" + AGENT + "\", \"fun\": \"test.ping\"}");
        if (started.statusCode() != 200 && started.statusCode() != 201) {
            return null;
        }
        String jid = Json.json().readTree(started.body()).path("jid").asText();
        JsonNode job = Json.json().readTree(send("GET", port, "/api/v1/jobs/" + jid + "?wait=3", token, null).body());
        return job.path("returns").has(AGENT) ? jid : null;
    }

    Set<String> storedSets(int port, String token) throws Exception {
        Set<String> names = new TreeSet<>();
        for (JsonNode set : Json.json().readTree(send("GET", port, "/api/v1/sets?bk_biz_id=9", token, null).body())) {
            names.add(set.path("bk_set_name").asText());
        }
        return names;
    }

    private String readyz(int port) {
        try {
            return send("GET", port, "/readyz", "", null).body();
        } catch (Exception e) {
            return e.toString();
        }
    }

    /** How many set creations the audit log records as 201: one row per acknowledged set, at least. */
    long auditedSetCreations(int port, String token) throws Exception {
        long count = 0;
        for (long offset = 0; ; offset += 500) {
            JsonNode page = Json.json().readTree(send("GET", port, "/api/v1/audit?limit=500&offset=" + offset, token, null).body());
            for (JsonNode entry : page.path("items")) {
                if (entry.path("path").asText().equals("/api/v1/sets") && entry.path("status").asInt() == 201) {
                    count++;
                }
            }
            if (page.path("items").size() < 500) {
                return count;
            }
        }
    }

    @Test
    void sqliteKeepsEveryAcknowledgedWriteThroughRepeatedKills() throws Exception {
        Path file = dir.resolve("data/" + io.drover.server.config.ServerConfig.EMBEDDED_DATABASE);
        killedAgainAndAgain(SQLITE_ROUNDS, List.of(), () -> assertThat(integrityCheck(file)).isEqualTo("ok"));
    }

    /** SQLite's own check of the file (and its WAL, which opening it recovers), as a killed server left it. */
    static String integrityCheck(Path file) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
             java.sql.ResultSet rs = c.createStatement().executeQuery("PRAGMA integrity_check")) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot check " + file, e);
        }
    }

    @Test
    void postgresKeepsEveryAcknowledgedWriteThroughRepeatedKills() throws Exception {
        TestDatabases.Target pg = TestDatabases.postgres();
        try {
            killedAgainAndAgain(POSTGRES_ROUNDS, List.of("--db-url", pg.url(), "--db-user", pg.user(), "--db-password", pg.password()),
                    () -> { });
        } finally {
            pg.drop().run();
        }
    }
}
