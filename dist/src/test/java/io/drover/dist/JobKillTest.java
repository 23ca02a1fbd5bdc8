package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs stopped on real agents on loopback: {@code saltutil.kill_job} kills every process of the job (its process
 * group, and what left it) with SIGTERM then SIGKILL, and the job returns, marked killed.
 */
class JobKillTest {
    @TempDir
    Path roots;
    Fleet fleet;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "kill-*")), roots);
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    /** Processes whose command line holds {@code marker}. */
    static List<ProcessHandle> running(String marker) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
    }

    JsonNode job(Map<String, Object> body) {
        TestServer.Response r = fleet.server.post("/api/v1/jobs", fleet.server.adminToken(), body);
        assertThat(r.status()).as(r.text()).isLessThan(300);
        return r.body();
    }

    JsonNode returnOf(String jid, String agent) {
        return fleet.server.get("/api/v1/jobs/" + jid, fleet.server.adminToken()).body().path("returns").path(agent);
    }

    @Test
    void killJobKillsTheJobsWholeProcessGroupAndTheJobReturnsKilled() {
        fleet.agent("kill-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "kill-1", "test.ping", "--timeout", "3").exit() == 0);

        // A shell with a child in the background, one in the foreground, and one that leaves the process group.
        String marker = "60.0" + ProcessHandle.current().pid();
        String jid = job(Map.of("tgt", "kill-1", "fun", "cmd.run", "arg", List.of("sleep " + marker + " & setsid sleep "
                + marker + " & sleep " + marker + "; echo finished"), "timeout", 120)).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> running(marker).size() >= 3);

        String killJid = job(Map.of("tgt", "kill-1", "fun", "saltutil.kill_job", "arg", List.of(jid))).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(killJid, "kill-1").isMissingNode());
        JsonNode killed = returnOf(killJid, "kill-1");
        assertThat(killed.path("ret").path("found").asBoolean()).as(killed.toString()).isTrue();
        assertThat(killed.path("ret").path("signalled").asInt()).as(killed.toString()).isGreaterThanOrEqualTo(3);
        assertThat(running(marker)).as("every process of the job is gone").isEmpty();

        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(jid, "kill-1").isMissingNode());
        JsonNode ret = returnOf(jid, "kill-1");
        assertThat(ret.path("retcode").asInt()).as(ret.toString()).isNotZero();
        assertThat(ret.path("ret").asText()).doesNotContain("finished");

        // A job that is not running (any more) is not found, and nothing is signalled.
        String again = job(Map.of("tgt", "kill-1", "fun", "saltutil.kill_job", "arg", List.of(jid))).path("jid").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> !returnOf(again, "kill-1").isMissingNode());
        assertThat(returnOf(again, "kill-1").path("ret").path("found").asBoolean()).isFalse();
        assertThat(returnOf(again, "kill-1").path("ret").path("signalled").asInt()).isZero();
    }
}
