package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.drover.agent.DroverAgent;
import io.drover.server.config.Setting;
import io.drover.server.testing.EventFollower;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.SaltMinion;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Fault test: the server restarts under running agents. They sign in again on their own; stored returns stay. */
class ServerRestartTest {
    @TempDir
    Path roots;

    /**
     * Event streams (and a job wait) open while clients go away and the server stops: the server stops promptly and
     * nothing writes into an exchange Jetty already recycled (Javalin re-runs a failing exception handler for as long
     * as it fails; that once spun a core and wrote gigabytes of warnings).
     */
    @Test
    void clientsLeavingAndAStopDuringOpenStreamsEndCleanly() throws Exception {
        Logger javalin = (Logger) LoggerFactory.getLogger("io.javalin");
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        javalin.addAppender(warnings);
        Fleet fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "node-*")), roots);
        boolean stopped = false;
        try {
            DroverAgent a = fleet.agent("node-a");
            await().atMost(Duration.ofSeconds(20)).until(() -> fleet.drover("run", "node-a", "test.ping", "--timeout", "3").exit() == 0);
            try (EventFollower leaving = new EventFollower(fleet.server.url(), "?tag=*", fleet.server.adminToken())) {
                await().atMost(Duration.ofSeconds(5)).until(leaving::connected);
            }
            EventFollower staying = new EventFollower(fleet.server.url(), "?tag=*", fleet.server.adminToken());
            await().atMost(Duration.ofSeconds(5)).until(staying::connected);
            a.close(); // accepted, but no longer answering
            String jid = fleet.server.post("/api/v1/jobs", fleet.server.adminToken(), Map.of("tgt", "node-a", "fun", "test.ping",
                    "timeout", 60)).body().path("jid").asText();
            HttpClient http = HttpClient.newHttpClient();
            var waiting = http.sendAsync(HttpRequest.newBuilder(URI.create(fleet.server.url()
                    + "/api/v1/jobs/" + jid + "?wait=30")).header("Authorization", "Bearer " + fleet.server.adminToken()).build(),
                    HttpResponse.BodyHandlers.ofString());
            // half a second on, the long poll is still held by the server (the job cannot complete)
            await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
            long stopping = System.nanoTime();
            stopped = true;
            fleet.close();
            assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(Duration.ofSeconds(10));
            try {
                waiting.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException cut) {
                // the connection closed with the server
            }
            staying.close();
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> warnings.list.size() < 5);
        } finally {
            javalin.detachAppender(warnings);
            if (!stopped) {
                fleet.close();
            }
        }
    }

    @Test
    void agentsReauthenticateAfterARestartAndStoredReturnsAreKept() {
        Path dataDir = TestServer.newDataDir();
        Map<Setting, String> settings = Map.of(Setting.SALT_PUBLISH_PORT, Integer.toString(TestServer.freePort()),
                Setting.SALT_REQUEST_PORT, Integer.toString(TestServer.freePort()), Setting.AUTO_ACCEPT, "node-*");
        Fleet first = new Fleet(TestServer.start(dataDir, settings), roots);
        DroverAgent a = first.agent("node-a");
        DroverAgent b = first.agent("node-b");
        await().atMost(Duration.ofSeconds(20)).until(() -> first.drover("run", "-L", "node-a,node-b", "test.ping", "--timeout", "3").exit() == 0);
        String jid = first.server.post("/api/v1/jobs", first.server.adminToken(), Map.of("tgt", "*", "fun", "test.echo",
                "arg", java.util.List.of("before restart"))).body().path("jid").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> first.server.get("/api/v1/jobs/" + jid,
                first.server.adminToken()).body().path("missing").isEmpty());
        first.server.close();

        Fleet second = new Fleet(TestServer.start(dataDir, settings), roots);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> second.drover("run", "-L", "node-a,node-b", "test.ping", "--timeout", "3").exit() == 0);
            assertThat(a.state()).isEqualTo(SaltMinion.State.CONNECTED);
            assertThat(b.state()).isEqualTo(SaltMinion.State.CONNECTED);
            var job = second.server.get("/api/v1/jobs/" + jid, second.server.adminToken()).body();
            assertThat(job.path("returns").path("node-a").path("ret").asText()).isEqualTo("before restart");
            assertThat(job.path("returns").path("node-b").path("ret").asText()).isEqualTo("before restart");
            assertThat(job.path("missing")).isEmpty();
        } finally {
            a.close();
            b.close();
            second.close();
        }
    }

    /** A plan's log lines sent while the server is away are kept by the agent and arrive once it is back. */
    @Test
    void planLogLinesSentWhileTheServerIsAwayArriveWhenItIsBack() throws Exception {
        Path dataDir = TestServer.newDataDir();
        Map<Setting, String> settings = Map.of(Setting.SALT_PUBLISH_PORT, Integer.toString(TestServer.freePort()),
                Setting.SALT_REQUEST_PORT, Integer.toString(TestServer.freePort()), Setting.AUTO_ACCEPT, "node-*");
        Fleet first = new Fleet(TestServer.start(dataDir, settings), roots);
        DroverAgent a = first.agent("node-a");
        await().atMost(Duration.ofSeconds(20)).until(() -> first.drover("run", "node-a", "test.ping", "--timeout", "3").exit() == 0);
        Path gate = roots.resolve("gate");
        String body = """
                import os, time
                api.logInfo('before')
                while not os.path.exists(%s):
                    time.sleep(0.1)
                api.logInfo('while away')
                return 1""".formatted("'" + gate + "'");
        var started = first.server.post("/api/v1/plans", first.server.adminToken(), Map.of("tgt", "node-a", "tgt_type", "list",
                "plan", Map.of("FormatVersion", "2.1.0", "ID", "away-1", "Body", body)));
        assertThat(started.status()).as(started.text()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> first.server.get("/api/v1/plans/away-1", first.server.adminToken()).body()
                .path("logs").size() == 1);
        first.server.close();
        java.nio.file.Files.writeString(gate, "go"); // the plan logs again, then finishes, while no server listens
        await().atMost(Duration.ofSeconds(10)).until(() -> a.state() != SaltMinion.State.CONNECTED);

        Fleet second = new Fleet(TestServer.start(dataDir, settings), roots);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> second.server.get("/api/v1/plans/away-1", second.server.adminToken()).body()
                    .path("status").asText().equals("SUCCEEDED"));
            await().atMost(Duration.ofSeconds(30)).until(() -> second.server.get("/api/v1/plans/away-1", second.server.adminToken()).body()
                    .path("logs").size() == 2);
            var logs = second.server.get("/api/v1/plans/away-1", second.server.adminToken()).body().path("logs");
            assertThat(logs.get(0).path("body").asText()).isEqualTo("before");
            assertThat(logs.get(1).path("body").asText()).isEqualTo("while away");
        } finally {
            a.close();
            second.close();
        }
    }
}
