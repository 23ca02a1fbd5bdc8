package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestDatabases;
import io.drover.server.testing.TestNats;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.MinionConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers in one cluster over the real PostgreSQL and a nats-server of the test's own that admits only the
 * servers' account, agents on each: a job started on one server reaches the agents of both, the caller waiting on it
 * hears every return, and either server's event stream shows what the other stored; whoever holds the servers' NATS
 * account but not the cluster's secret key cannot have a job run. Fails, not skips, under CI when nats-server or
 * PostgreSQL is missing.
 */
class ClusterEndToEndTest {
    @TempDir
    Path roots;
    TestNats nats;
    TestDatabases.Target db;
    final List<TestServer> servers = new ArrayList<>();
    final List<DroverAgent> agents = new ArrayList<>();

    @BeforeEach
    void cluster() {
        nats = TestNats.withPassword(roots);
        db = TestDatabases.postgres();
        for (int i = 0; i < 2; i++) {
            Path dataDir = TestServer.newDataDir();
            if (i > 0) {
                // A cluster's servers share the master key (agents pin it), the secret key (addon parameters are
                // sealed with it) and, for this test, the admin token the first server wrote into the database.
                for (String file : List.of("admin.token", "master.pem", "secret.key")) {
                    copy(servers.get(0).dataDir().resolve(file), dataDir.resolve(file));
                }
            }
            servers.add(TestServer.start(dataDir, settings(Map.of())));
        }
    }

    /** A cluster server's settings, with more. */
    Map<Setting, String> settings(Map<Setting, String> more) {
        Map<Setting, String> settings = new java.util.EnumMap<>(Setting.class);
        settings.putAll(Map.of(Setting.DB_URL, db.url(), Setting.DB_USER, db.user(), Setting.DB_PASSWORD, db.password(),
                Setting.AUTO_ACCEPT, "c-*"));
        settings.putAll(nats.clusterSettings());
        settings.putAll(more);
        return settings;
    }

    @AfterEach
    void stop() {
        agents.forEach(DroverAgent::close);
        servers.forEach(server -> server.server().close());
        if (db != null) {
            db.drop().run();
        }
        if (nats != null) {
            nats.close();
        }
    }

    static void copy(Path from, Path to) {
        try {
            java.nio.file.Files.copy(from, to);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static MinionConfig.Master master(TestServer server) {
        return new MinionConfig.Master("127.0.0.1", server.server().master().publishPort(), server.server().master().requestPort());
    }

    DroverAgent agent(String id, TestServer... servers) {
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", 1, 1)
                .withMasters(java.util.Arrays.stream(servers).map(ClusterEndToEndTest::master).toList())
                .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(2000));
        DroverAgent agent = DroverAgent.start(config, roots.resolve(id), "test", new Grains.Placement(null, 0), Duration.ofSeconds(30));
        agents.add(agent);
        return agent;
    }

    @Test
    void aJobStartedOnOneServerReachesTheAgentsOfEveryServerAndItsCallerHearsEveryReturn() throws Exception {
        TestServer a = servers.get(0);
        TestServer b = servers.get(1);
        String token = a.adminToken();
        assertThat(b.get("/api/v1/whoami", token).status()).as("one database: a token works on every server").isEqualTo(200);
        agent("c-a1", a);
        agent("c-b1", b);
        agent("c-b2", b);
        await().atMost(Duration.ofSeconds(30)).until(() -> b.get("/api/v1/agents", token).body().size() == 3);

        List<String> streamed = new CopyOnWriteArrayList<>();
        Thread stream = Thread.ofVirtual().start(() -> readEvents(b, token, "salt/job/*", streamed));
        try {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode started = a.post("/api/v1/jobs", token, Map.of("tgt", "c-*", "fun", "test.ping")).body();
                JsonNode job = a.get("/api/v1/jobs/" + started.path("jid").asText() + "?wait=10", token).body();
                assertThat(job.path("missing").size()).as(job.toString()).isZero();
                assertThat(job.path("returns").size()).isEqualTo(3);
                for (String id : List.of("c-a1", "c-b1", "c-b2")) {
                    assertThat(job.path("returns").path(id).path("ret").asBoolean()).isTrue();
                }
                // the return of the agent on server A, stored by A, is on B's stream
                assertThat(streamed).anyMatch(tag -> tag.equals("salt/job/" + started.path("jid").asText() + "/ret/c-a1"));
            });
        } finally {
            stream.interrupt();
        }
    }

    @Test
    void anAgentWhoseServerStopsMovesToTheNextServerOfItsListAndAnswersThere() {
        TestServer a = servers.get(0);
        TestServer b = servers.get(1);
        String token = a.adminToken();
        DroverAgent agent = agent("c-f1", a, b);
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(b, token, "c-f1"));
        assertThat(agent.master().requestPort()).as("the first server of its list").isEqualTo(master(a).requestPort());

        long stopped = System.nanoTime();
        servers.remove(a);
        a.server().close();
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.master().equals(master(b)) && pinged(b, token, "c-f1"));
        System.out.printf("c-f1 answered on the second server %d ms after the first stopped%n",
                (System.nanoTime() - stopped) / 1_000_000);
        JsonNode seen = b.get("/api/v1/agents/c-f1", token).body();
        assertThat(seen.path("online").asBoolean()).as(seen.toString()).isTrue();
        assertThat(agent.signIns()).as("the servers share the session key: the agent moved without signing in again")
                .isEqualTo(1);
    }

    @Test
    void withFailbackAnAgentMovesBackToItsFirstServerOnceItAnswersAndKeepsItsSession() {
        TestServer a = servers.get(0);
        String token = a.adminToken();
        int publishPort = TestServer.freePort();
        int requestPort = TestServer.freePort();
        MinionConfig.Master first = new MinionConfig.Master("127.0.0.1", publishPort, requestPort);
        MinionConfig config = MinionConfig.of("c-p1", "127.0.0.1", 1, 1).withMasters(List.of(first, master(a)))
                .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(500))
                .withFailback(Duration.ofSeconds(1));
        DroverAgent agent = DroverAgent.start(config, roots.resolve("c-p1"), "test", new Grains.Placement(null, 0), Duration.ofSeconds(30));
        agents.add(agent);
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.master().equals(master(a)) && pinged(a, token, "c-p1"));

        // the first server of its list comes up (a third server of the cluster)
        Path dataDir = TestServer.newDataDir();
        for (String file : List.of("admin.token", "master.pem", "secret.key")) {
            copy(a.dataDir().resolve(file), dataDir.resolve(file));
        }
        servers.add(TestServer.start(dataDir, settings(Map.of(
                Setting.SALT_PUBLISH_PORT, Integer.toString(publishPort), Setting.SALT_REQUEST_PORT, Integer.toString(requestPort)))));
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.master().equals(first) && pinged(a, token, "c-p1"));
        assertThat(agent.signIns()).as("moved back under the shared session key, without signing in").isEqualTo(1);
    }

    @Test
    void theServersShareOneSessionKeyAndARotationOnOneReachesEveryServer() {
        TestServer a = servers.get(0);
        TestServer b = servers.get(1);
        String token = a.adminToken();
        assertThat(a.get("/api/v1/cluster", token).body().path("session_key_generation").asLong())
                .isEqualTo(b.get("/api/v1/cluster", token).body().path("session_key_generation").asLong()).isEqualTo(1);
        DroverAgent onA = agent("c-r1", a);
        agent("c-r2", b);
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(b, token, "c-r1") && pinged(a, token, "c-r2"));

        // deleting a key on B cuts that agent off everywhere: the key rotates on every server
        assertThat(b.delete("/api/v1/keys/c-r2", token).status()).isLessThan(300);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                a.get("/api/v1/cluster", token).body().path("session_key_generation").asLong() == 2);
        assertThat(b.get("/api/v1/cluster", token).body().path("session_key_generation").asLong()).isEqualTo(2);
        // the agent on A cannot read the next job under the old key, signs in again under the new one and answers
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(b, token, "c-r1"));
        assertThat(onA.signIns()).isEqualTo(2);
    }

    @Test
    void malformedOversizedAndDeeplyNestedPeerMessagesAreDroppedAndTheClusterKeepsWorking() throws Exception {
        TestServer a = servers.get(0);
        TestServer b = servers.get(1);
        String token = a.adminToken();
        agent("c-b1", b);
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(a, token, "c-b1"));
        try (io.nats.client.Connection nats = this.nats.connectWithTheServersAccount()) {
            String nested = "{\"a\":".repeat(5_000) + "1" + "}".repeat(5_000);
            for (String subject : List.of("drover.publish", "drover.events", "drover.returns")) {
                nats.publish(subject, new byte[] {0, (byte) 0xff, 0x7b});
                nats.publish(subject, "not json".getBytes(StandardCharsets.UTF_8));
                nats.publish(subject, nested.getBytes(StandardCharsets.UTF_8));
                nats.publish(subject, ("{\"origin\":\"x\",\"load\":\"" + "y".repeat(900_000) + "\"}").getBytes(StandardCharsets.UTF_8));
                nats.publish(subject, "{\"origin\":\"x\",\"load\":[1],\"minions\":{},\"event\":7}".getBytes(StandardCharsets.UTF_8));
            }
            nats.flush(Duration.ofSeconds(5));
        }
        // both servers still pass jobs and returns to each other
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(a, token, "c-b1"));
        assertThat(a.get("/readyz", null).status()).isEqualTo(200);
        assertThat(b.get("/readyz", null).status()).isEqualTo(200);
    }

    @Test
    void withTheServersNatsAccountButNotTheClusterKeyAJobPublishedOnNatsReachesNoAgent() throws Exception {
        TestServer a = servers.get(0);
        TestServer b = servers.get(1);
        String token = a.adminToken();
        agent("c-b1", b);
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(a, token, "c-b1"));
        Path pwned = roots.resolve("pwned");
        Map<String, Object> load = new java.util.LinkedHashMap<>();
        load.put("fun", "cmd.run");
        load.put("arg", List.of("touch " + pwned));
        load.put("tgt", "c-b1");
        load.put("tgt_type", "glob");
        load.put("jid", "20261127010203000042");
        load.put("ret", "");
        load.put("user", "root");
        try (io.nats.client.Connection leaked = nats.connectWithTheServersAccount()) {
            // the message a server sent before the seal, and the same sealed under a key that is not the cluster's
            byte[] message = io.drover.model.Json.json().writeValueAsBytes(Map.of("origin", "x", "load", load, "minions", List.of("c-b1")));
            leaked.publish("drover.publish", message);
            leaked.publish("drover.publish", new io.drover.core.cluster.ClusterSeal(new byte[32], java.util.UUID.randomUUID(),
                    java.time.Clock.systemUTC(), Duration.ofSeconds(60), 1 << 20).seal("drover.publish", message));
            leaked.flush(Duration.ofSeconds(5));
        }
        // a genuine job through the cluster after them still reaches the agent
        await().atMost(Duration.ofSeconds(30)).until(() -> pinged(a, token, "c-b1"));
        assertThat(pwned).as("the agent ran the forged cmd.run").doesNotExist();
        String metrics = b.get("/metrics", null).text();
        assertThat(metrics).contains("drover_cluster_messages_refused_total{reason=\"unsealed\"} 1.0")
                .contains("drover_cluster_messages_refused_total{reason=\"forged\"} 1.0");
        JsonNode status = b.get("/api/v1/cluster", token).body();
        assertThat(status.path("nats_credentials").asText()).isEqualTo("user");
        assertThat(status.path("insecure").asBoolean()).isFalse();
    }

    @Test
    void aServerRefusesToJoinAClusterWithoutCredentialsAndNatsRefusesAWrongPassword() throws Exception {
        Map<Setting, String> none = new java.util.EnumMap<>(settings(Map.of()));
        none.remove(Setting.CLUSTER_USER);
        none.remove(Setting.CLUSTER_PASSWORD_FILE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TestServer.start(TestServer.newDataDir(), none))
                .hasMessageContaining("needs credentials that the cluster's NATS checks");

        Path wrong = roots.resolve("wrong.password");
        java.nio.file.Files.writeString(wrong, "not-the-password\n");
        Path dataDir = TestServer.newDataDir();
        for (String file : List.of("admin.token", "master.pem", "secret.key")) {
            copy(servers.get(0).dataDir().resolve(file), dataDir.resolve(file));
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TestServer.start(dataDir,
                        settings(Map.of(Setting.CLUSTER_PASSWORD_FILE, wrong.toString()))))
                .hasMessageContaining("cannot reach the cluster's NATS").hasMessageNotContaining("not-the-password");

        // with --cluster-insecure a server joins a NATS without authorization, and says so
        try (TestNats open = TestNats.start(roots, "")) {
            Map<Setting, String> insecure = new java.util.EnumMap<>(none);
            insecure.put(Setting.CLUSTER, open.url());
            insecure.put(Setting.CLUSTER_INSECURE, "true");
            TestServer alone = TestServer.start(dataDir, insecure);
            servers.add(alone);
            JsonNode status = alone.get("/api/v1/cluster", alone.adminToken()).body();
            assertThat(status.path("nats_credentials").asText()).isEqualTo("none");
            assertThat(status.path("insecure").asBoolean()).isTrue();
            assertThat(status.path("nats_connected").asBoolean()).isTrue();
        }
    }

    /** Whether the agent answers test.ping from that server within 5 s. */
    static boolean pinged(TestServer server, String token, String id) {
        JsonNode started = server.post("/api/v1/jobs", token, Map.of("tgt", id, "fun", "test.ping")).body();
        if (started.path("jid").isMissingNode()) {
            return false;
        }
        JsonNode job = server.get("/api/v1/jobs/" + started.path("jid").asText() + "?wait=5", token).body();
        return job.path("returns").path(id).path("ret").asBoolean();
    }

    /** Reads a server's event stream, keeping each event's tag, until interrupted. */
    static void readEvents(TestServer server, String token, String tag, List<String> tags) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/events?tag=" + tag))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").build();
        try {
            HttpResponse<java.io.InputStream> response = HttpClient.newHttpClient().send(request,
                    HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("event:")) {
                        tags.add(line.substring(6).strip());
                    }
                }
            }
        } catch (java.io.IOException | InterruptedException e) {
            // the test is over
        }
    }
}
