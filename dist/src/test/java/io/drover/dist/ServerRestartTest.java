package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.SaltMinion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fault test: the server restarts under running agents. They sign in again on their own; stored returns stay. */
class ServerRestartTest {
    @TempDir
    Path roots;

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
}
