package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real server and real agents on loopback, driven through the CLI: keys, remote execution, refusals. */
class AgentEndToEndTest {
    TestServer server;
    final List<DroverAgent> agents = new ArrayList<>();
    @TempDir
    Path roots;

    @BeforeEach
    void start() {
        server = TestServer.start();
    }

    @AfterEach
    void stop() {
        agents.forEach(DroverAgent::close);
        server.close();
    }

    DroverAgent agent(String id) {
        var master = server.server().master();
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200));
        DroverAgent agent = DroverAgent.start(config, roots.resolve(id), "test");
        agents.add(agent);
        return agent;
    }

    record Run(int exit, String out, String err) {
    }

    Run drover(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] full = new String[args.length + 4];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "--server";
        full[args.length + 1] = server.url();
        full[args.length + 2] = "--token";
        full[args.length + 3] = server.adminToken();
        int exit = io.drover.cli.DroverCommand.commandLine().setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true)).execute(full);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void aPendingKeyIsAcceptedThenTheAgentAnswersJobs() throws Exception {
        DroverAgent web1 = agent("web-1");
        DroverAgent web2 = agent("web-2");
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            String keys = drover("key", "list").out();
            return keys.contains("web-1  pending") && keys.contains("web-2  pending");
        });
        Run refused = drover("run", "*", "test.ping");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("matches no accepted minion");

        assertThat(drover("key", "accept", "web-1").exit()).isZero();
        assertThat(drover("key", "accept", "web-2").exit()).isZero();
        await().atMost(Duration.ofSeconds(15)).until(() -> web1.state() == SaltMinion.State.CONNECTED
                && web2.state() == SaltMinion.State.CONNECTED);
        assertThat(Files.readString(roots.resolve("web-1/var/lib/drover-agent/minion_master.pub")))
                .isEqualTo(server.server().master().publicKeyPem());

        // PUB/SUB drops what is sent before the subscription lands: retry the first ping until both answer.
        await().atMost(Duration.ofSeconds(20)).until(() -> drover("run", "*", "test.ping", "--timeout", "3").exit() == 0);
        Run ping = drover("run", "*", "test.ping");
        assertThat(ping.exit()).as(ping.err()).isZero();
        assertThat(ping.out()).contains("web-1:\n    true").contains("web-2:\n    true");

        Run cmd = drover("run", "web-2", "cmd.run", "echo out; exit 3");
        assertThat(cmd.out()).contains("web-2:\n    out");
        assertThat(cmd.exit()).isEqualTo(1);

        // A return for a job that did not target the agent is not stored.
        String jid = server.post("/api/v1/jobs", server.adminToken(), java.util.Map.of("tgt", "web-1", "fun", "test.ping"))
                .body().path("jid").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.get("/api/v1/jobs/" + jid, server.adminToken()).body()
                .path("missing").isEmpty());
        assertThat(server.server().jobs().onReturn("web-2", java.util.Map.of("jid", jid, "fun", "test.ping", "return", true)))
                .isEqualTo(true);
        assertThat(server.get("/api/v1/jobs/" + jid, server.adminToken()).body().path("returns").has("web-2")).isFalse();

        Run echo = drover("run", "-L", "web-1,ghost", "test.echo", "héllo-ünicode");
        assertThat(echo.out()).contains("web-1:\n    héllo-ünicode").doesNotContain("web-2");
        assertThat(echo.err()).contains("not accepted agents, not targeted: ghost");
        assertThat(echo.exit()).isEqualTo(1);
    }

    @Test
    void aRejectedAgentIsCutOffAndGetsNoJobs() throws Exception {
        DroverAgent web1 = agent("web-1");
        await().atMost(Duration.ofSeconds(15)).until(() -> drover("key", "list").out().contains("web-1  pending"));
        drover("key", "accept", "web-1");
        await().atMost(Duration.ofSeconds(15)).until(() -> web1.state() == SaltMinion.State.CONNECTED);
        await().atMost(Duration.ofSeconds(20)).until(() -> drover("run", "web-1", "test.ping", "--timeout", "3").exit() == 0);
        assertThat(drover("key", "reject", "web-1").exit()).isZero();
        Run after = drover("run", "web-1", "test.ping");
        assertThat(after.exit()).isEqualTo(1);
        assertThat(after.err()).contains("matches no accepted minion");
        // The session key was rotated and the key is no longer accepted: the agent's old session opens nothing.
        assertThat(server.server().keys().acceptedKey("web-1")).isNull();
        assertThat(drover("key", "list", "--state", "rejected").out()).contains("web-1  rejected");
    }
}
