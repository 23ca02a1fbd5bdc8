package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plans over the Drover transport to a {@code drover agent} process killed with SIGKILL mid-plan: the plan runs again
 * from the start once, and is answered with 1 when cut short again; a plan waiting for a reboot runs again at each
 * start, within its expectReboots.
 */
class PlanAgentRestartTest {
    @TempDir
    Path dir;
    TestServer server;
    Process agent;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "*"));
        agent = startAgent();
        // Answered, not only accepted: a job published before the agent subscribed is never seen by it.
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var ping = server.post("/api/v1/jobs", server.adminToken(), Map.of("tgt", "host-1", "tgt_type", "list", "fun", "test.ping",
                    "timeout", 2));
            return ping.status() == 201 && server.get("/api/v1/jobs/" + ping.body().path("jid").asText() + "?wait=2", server.adminToken())
                    .body().path("missing").isEmpty();
        });
    }

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            AgentProcess.kill(agent);
        }
        AgentProcess.printTail(dir.resolve("agent.log"));
        server.close();
    }

    Process startAgent() throws Exception {
        return AgentProcess.start(server, "host-1", dir.resolve("host"), dir.resolve("agent.log"));
    }

    String send(Map<String, Object> plan) {
        var r = server.post("/api/v1/plans", server.adminToken(), Map.of("tgt", "host-1", "tgt_type", "list", "plan", plan));
        assertThat(r.status()).as(r.text()).isEqualTo(202);
        return r.body().path("id").asText();
    }

    JsonNode finished(String id) {
        await().atMost(Duration.ofSeconds(60)).until(() -> !server.get("/api/v1/plans/" + id, server.adminToken()).body()
                .path("status").asText().equals("RUNNING"));
        return server.get("/api/v1/plans/" + id, server.adminToken()).body();
    }

    @Test
    void aPlanCutShortRunsAgainOnceThenIsAnsweredWith1() throws Exception {
        Path marker = dir.resolve("runs.txt");
        Map<String, Object> plan = new LinkedHashMap<>(Map.of("FormatVersion", "2.1.0", "Body", "return s()",
                "Scripts", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")),
                "Files", Map.of("f", Map.of("Name", "f.sh", "BodyType", "Text", "Body", "echo run >> " + marker + "\nsleep 60"))));
        String id = send(plan);
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(marker) == 1);
        AgentProcess.kill(agent);
        agent = startAgent();
        await().atMost(Duration.ofSeconds(30)).alias("run again from the start").until(() -> lines(marker) == 2);
        AgentProcess.kill(agent);
        agent = startAgent();
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).isEqualTo("FAILED");
        JsonNode result = run.path("results").path("host-1");
        assertThat(result.path("error_code").asInt()).as(run.toString()).isEqualTo(1);
        assertThat(result.path("message").asText()).contains("again after it was restarted from the start");
        assertThat(Files.readAllLines(marker)).as("run twice, never a third time").hasSize(2);
    }

    @Test
    void aPlanRestartedOnceFinishesNormally() throws Exception {
        Path marker = dir.resolve("runs.txt");
        Map<String, Object> plan = new LinkedHashMap<>(Map.of("FormatVersion", "2.1.0", "Body", "return s().stdout",
                "Scripts", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")),
                "Files", Map.of("f", Map.of("Name", "f.sh", "BodyType", "Text", "Body", "echo run >> " + marker
                        + "\n[ $(wc -l < " + marker + ") -ge 2 ] || sleep 60\necho finished"))));
        String id = send(plan);
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(marker) == 1);
        AgentProcess.kill(agent);
        agent = startAgent();
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("SUCCEEDED");
        assertThat(run.path("results").path("host-1").path("document").path("Body").asText()).isEqualTo("finished");
    }

    @Test
    void rebootsBeyondExpectRebootsAreAnsweredNotLooped() throws Exception {
        Map<String, Object> plan = new LinkedHashMap<>(Map.of("FormatVersion", "2.1.0", "Service", "svc-loop",
                "Body", "api.expectReboots(1)\nn = (api.getState('runs') or 0) + 1\napi.setState('runs', n)\n"
                        + "api.waitReboot(120)\nreturn n"));
        String id = send(plan);
        for (int reboots = 0; reboots <= 1; reboots++) {
            int done = reboots;
            await().atMost(Duration.ofSeconds(30)).alias("waiting for reboot " + (done + 1)).until(() -> waiting(1, done));
            AgentProcess.kill(agent);
            agent = startAgent();
        }
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).isEqualTo("FAILED");
        assertThat(run.path("results").path("host-1").path("message").asText()).as(run.toString())
                .contains("restarted after 1 reboot(s)", "over its limit of 1");
    }

    /** Whether the agent's one remembered plan waits for a reboot with this limit, after this many reboots. */
    private boolean waiting(int limit, int reboots) throws Exception {
        Path restartable = dir.resolve("host/var/lib/drover-agent/plans/restartable");
        if (!Files.isDirectory(restartable)) {
            return false;
        }
        try (java.util.stream.Stream<Path> files = Files.list(restartable)) {
            for (Path file : files.toList()) {
                Map<?, ?> state = (Map<?, ?>) io.drover.model.plans.PlanJson.read(Files.readAllBytes(file));
                if (Integer.valueOf(limit).equals(state.get("waitingLimit")) && Integer.valueOf(reboots).equals(state.get("reboots"))) {
                    return true;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return false; // a file replaced while read
        }
        return false;
    }

    private static long lines(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }

    @Test
    void aPlanWaitingForARebootRunsAgainAfterTheRestart() throws Exception {
        Map<String, Object> plan = new LinkedHashMap<>(Map.of("FormatVersion", "2.1.0", "Service", "svc",
                "Body", "n = (api.getState('runs') or 0) + 1\napi.setState('runs', n)\n"
                        + "if n == 1:\n    api.logInfo('waiting for a reboot')\n    api.waitReboot(120)\nreturn n"));
        String id = send(plan);
        await().atMost(Duration.ofSeconds(30)).until(() -> server.get("/api/v1/plans/" + id, server.adminToken()).body()
                .path("logs").size() == 1);
        AgentProcess.kill(agent);
        agent = startAgent();
        JsonNode run = finished(id);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("SUCCEEDED");
        assertThat(run.path("results").path("host-1").path("document").path("Body").asInt()).isEqualTo(2);
    }
}
