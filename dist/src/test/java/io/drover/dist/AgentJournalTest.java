package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.transport.wire.SaltPack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's journal against a real server, with the agent as a separate process that is killed with
 * {@code kill -9}: a job cut short is reported as interrupted and never run again; a return journalled but not
 * acknowledged is delivered after the restart, once.
 */
class AgentJournalTest {
    TestServer server;
    final List<Process> agents = new ArrayList<>();
    @TempDir
    Path root;

    @BeforeEach
    void start() {
        // accepted on sight: a pending key would cost each test the agent's 10 s acceptance wait
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "web-1"));
    }

    @AfterEach
    void stop() {
        agents.forEach(Process::destroyForcibly);
        server.close();
    }

    Process agent() throws Exception {
        var master = server.server().master();
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xmx64m", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "--id", "web-1",
                "--master", "127.0.0.1:" + master.requestPort(), "--publish-port", Integer.toString(master.publishPort()),
                "--root", root.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(root.resolve("agent.log").toFile()).start();
        agents.add(p);
        return p;
    }

    JsonNode job(String jid) {
        return server.get("/api/v1/jobs/" + jid, server.adminToken()).body();
    }

    String run(String fun, Object... args) {
        TestServer.Response r = server.post("/api/v1/jobs", server.adminToken(),
                Map.of("tgt", "web-1", "fun", fun, "arg", List.of(args)));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("jid").asText();
    }

    @Test
    void aJobCutShortByKill9IsReportedInterruptedAndNeverRunAgain() throws Exception {
        Process first = agent();
        waitForPing();
        Path counter = root.resolve("counter");
        String jid = run("cmd.run", "echo ran >> " + counter + "; sleep 5; echo finished");
        await().atMost(Duration.ofSeconds(15)).until(() -> Files.exists(counter));
        first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);

        agent();
        await().atMost(Duration.ofSeconds(60)).until(() -> job(jid).path("missing").isEmpty());
        JsonNode ret = job(jid).path("returns").path("web-1");
        assertThat(ret.path("retcode").asInt()).isEqualTo(1);
        assertThat(ret.path("ret").asText()).startsWith("interrupted");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> Files.readAllLines(counter).equals(List.of("ran")));
    }

    @Test
    void aReturnJournalledButNotAcknowledgedIsDeliveredAfterRestartOnce() throws Exception {
        Process first = agent();
        waitForPing();
        first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        // While the agent is down a job is published (it misses it); its journal is then left exactly as a kill -9
        // after running the job but before the server acknowledged the return would leave it.
        String jid = run("test.echo", "from the journal");
        Map<String, Object> ret = new LinkedHashMap<>();
        ret.put("jid", jid);
        ret.put("fun", "test.echo");
        ret.put("fun_args", List.of("from the journal"));
        ret.put("return", "from the journal");
        ret.put("retcode", 0);
        ret.put("success", true);
        Path journal = root.resolve("var/lib/drover-agent/journal");
        Files.write(journal.resolve(jid + ".ret"), SaltPack.pack(ret));

        Process second = agent();
        await().atMost(Duration.ofSeconds(60)).until(() -> job(jid).path("missing").isEmpty());
        assertThat(job(jid).path("returns").path("web-1").path("ret").asText()).isEqualTo("from the journal");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(journal.resolve(jid + ".done")));
        assertThat(journal.resolve(jid + ".ret")).doesNotExist();

        // The same job published again is refused by the journal: it never runs twice.
        second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        agent();
        waitForPing();
        server.server().master().publish(new LinkedHashMap<>(Map.of("fun", "cmd.run",
                "arg", List.of("echo again >> " + root.resolve("again")), "tgt", "web-1", "tgt_type", "glob", "jid", jid,
                "ret", "")), List.of("web-1"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> !Files.exists(root.resolve("again")));
    }

    @Test
    void aJobSentAgainWhileItStillRunsIsAnsweredByItsRunNotAsInterrupted() throws Exception {
        agent();
        waitForPing();
        Path counter = root.resolve("counter");
        String jid = run("cmd.run", "echo ran >> " + counter + "; sleep 3; echo finished");
        await().atMost(Duration.ofSeconds(15)).until(() -> Files.exists(counter));
        // a server that took the call over sends it again under the same job id while the agent still runs it
        assertThat(server.server().jobs().redeliver(jid, "web-1")).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> job(jid).path("missing").isEmpty());
        JsonNode ret = job(jid).path("returns").path("web-1");
        assertThat(ret.path("ret").asText()).as(ret.toString()).isEqualTo("finished");
        assertThat(ret.path("retcode").asInt()).isZero();
        assertThat(Files.readAllLines(counter)).containsExactly("ran");
    }

    /** PUB/SUB drops what is sent before the subscription lands: ping until the agent answers. */
    void waitForPing() {
        await().atMost(Duration.ofSeconds(30)).until(() -> server.server().keys().list("accepted").size() == 1);
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            String jid = run("test.ping");
            try {
                await().atMost(Duration.ofMillis(800)).until(() -> job(jid).path("missing").isEmpty());
                return true;
            } catch (org.awaitility.core.ConditionTimeoutException lost) {
                return false;
            }
        });
    }
}
