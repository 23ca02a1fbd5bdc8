package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.server.config.Setting;
import io.drover.server.testing.EventFollower;
import io.drover.server.testing.TestServer;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A compromised host speaks for itself only: its agent may fire tags under {@code drover/agent/<its id>/…} and the logs
 * of plans sent to it. Another agent's events, job returns, presence the server writes and inventory events are
 * dropped at the server and counted in {@code /metrics}; the real events around them still arrive.
 */
class AgentEventNamespaceTest {

    @Test
    void anAgentCannotFireEventsForAnotherAgentOrTheServer() throws Exception {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "web-*"));
             EventFollower follower = new EventFollower(server.url(), "?tag=*", server.adminToken())) {
            var master = server.server().master();
            MinionConfig config = MinionConfig.of("web-1", "127.0.0.1", master.publishPort(), master.requestPort())
                    .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200));
            SaltMinion web1 = new SaltMinion(config, (RSAPrivateCrtKey) RsaKeys.generate().getPrivate(), null,
                    Targets.byId("web-1"), (m, load) -> { }, pem -> { });
            try {
                await().atMost(Duration.ofSeconds(15)).until(() -> web1.state() == SaltMinion.State.CONNECTED && follower.connected());
                List<String> forged = List.of(
                        "drover/agent/web-2/plugin/node_exporter/exited",     // another agent's namespace
                        "drover/agent/web-2/heartbeat",                       // another agent's grains
                        "salt/job/20261127083000000000/ret/web-2",            // a return, outside _return
                        "drover/agent/web-1/online",                          // presence is the server's to write
                        "drover/agent/web-1/linked",
                        "salt/key",
                        "drover/inventory/host/created",
                        "drover/plan/no-such-run/log",                        // a plan never sent to web-1
                        "drover/agent/web-1/x\0y");
                for (String tag : forged) {
                    assertThat(web1.fireEvent(tag, Map.of("forged", true))).as(tag).isTrue();
                }
                assertThat(web1.fireEvent("drover/agent/web-1/plugin/node_exporter/exited", Map.of("plugin", "node_exporter"))).isTrue();
                // Events are handled in the order each agent sent them: once the last (allowed) one is stored, every
                // forged one before it has been decided.
                await().atMost(Duration.ofSeconds(15))
                        .until(() -> follower.tags().contains("drover/agent/web-1/plugin/node_exporter/exited"));
                // (the server itself writes web-1's online event: the forged copies are those that carry the marker)
                assertThat(follower.events).noneMatch(e -> e.toString().contains("forged"));
                // (and its salt/key event when it accepted web-1's key)
                assertThat(follower.tags()).doesNotContain("drover/agent/web-2/plugin/node_exporter/exited",
                        "salt/job/20261127083000000000/ret/web-2", "drover/plan/no-such-run/log");
                String metrics = server.get("/metrics", null).text();
                assertThat(metrics).containsPattern("drover_agent_events_refused_total(\\{[^}]*\\})? " + forged.size() + "\\.0");
            } finally {
                web1.close();
            }
        }
    }
}
