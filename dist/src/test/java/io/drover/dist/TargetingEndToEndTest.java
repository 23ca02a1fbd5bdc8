package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.server.config.Setting;
import io.drover.server.testing.EventFollower;
import io.drover.server.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Grain, address, compound and nodegroup targets, resolved by the server from reported grains and re-checked by agents. */
class TargetingEndToEndTest {
    Fleet fleet;
    @TempDir
    Path roots;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "*",
                Setting.NODEGROUPS, "webs=S@10.0.1.0/24; everyone=N@webs or db-*")), roots);
        fleet.agent("web-1", "10.0.1.1", null, Duration.ofSeconds(30));
        fleet.agent("web-2", "10.0.1.2", null, Duration.ofSeconds(30));
        fleet.agent("db-1", "10.0.2.1", null, Duration.ofSeconds(30));
        // -L: every one of them must answer (a glob would be satisfied by the agents accepted so far).
        await().atMost(Duration.ofSeconds(20)).until(() -> fleet.drover("run", "-L", "web-1,web-2,db-1", "test.ping", "--timeout", "3").exit() == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> java.util.List.of("web-1", "web-2", "db-1").stream()
                .allMatch(id -> fleet.server.server().agents().grains(id).containsKey("drover_innerip")));
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    String answered(String... args) {
        Fleet.Run run = fleet.drover(args);
        assertThat(run.exit()).as(run.err()).isZero();
        return run.out().lines().filter(l -> l.endsWith(":")).sorted().reduce((a, b) -> a + " " + b).orElse("");
    }

    @Test
    void everyTargetTypeReachesExactlyItsAgents() {
        assertThat(answered("run", "-S", "10.0.1.0/24", "test.ping")).isEqualTo("web-1: web-2:");
        assertThat(answered("run", "-G", "drover_innerip:10.0.2.*", "test.ping")).isEqualTo("db-1:");
        assertThat(answered("run", "-P", "drover_innerip:10\\.0\\.1\\.[2-9]", "test.ping")).isEqualTo("web-2:");
        assertThat(answered("run", "-C", "G@kernel:linux and not web-1", "test.ping")).isEqualTo("db-1: web-2:");
        assertThat(answered("run", "-C", "( E@^web and S@10.0.1.1 ) or L@db-1", "test.ping")).isEqualTo("db-1: web-1:");
        assertThat(answered("run", "-N", "webs", "test.ping")).isEqualTo("web-1: web-2:");
        assertThat(answered("run", "-N", "everyone", "test.ping")).isEqualTo("db-1: web-1: web-2:");
    }

    /** The publish frames counted on /metrics since the server started, by topic (broadcast or minion). */
    double frames(String topic) {
        String prefix = "drover_salt_publish_frames_total{topic=\"" + topic + "\"}";
        return fleet.server.get("/metrics", null).text().lines().filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()).strip())).findFirst().orElseThrow();
    }

    @Test
    void aJobForEveryAgentGoesToEachUnderItsOwnKeyAndEachReturnIsAStoredEvent() throws Exception {
        double broadcast = frames("broadcast");
        double targeted = frames("minion");
        double own = frames("agent");
        String jid;
        try (EventFollower live = new EventFollower(fleet.server.url(), "?tag=salt/job/*/ret/*", fleet.server.adminToken())) {
            await().atMost(Duration.ofSeconds(5)).until(live::connected);
            jid = fleet.server.post("/api/v1/jobs", fleet.server.adminToken(), Map.of("tgt", "*", "fun", "test.ping"))
                    .body().path("jid").asText();
            String ret = "salt/job/" + jid + "/ret/";
            await().atMost(Duration.ofSeconds(10)).until(() -> live.tags().containsAll(List.of(ret + "web-1", ret + "web-2", ret + "db-1")));
            assertThat(live.events).filteredOn(e -> e.path("tag").asText().startsWith(ret)).hasSize(3)
                    .allSatisfy(e -> assertThat(e.at("/data/return").asBoolean()).isTrue());
        }
        // Drover agents never hold the shared key: one frame under each agent's own key, and the one signed broadcast
        // under the shared key that salt-minions would read.
        assertThat(frames("agent")).isEqualTo(own + 3);
        assertThat(frames("broadcast")).isEqualTo(broadcast + 1);
        assertThat(frames("minion")).isEqualTo(targeted);

        assertThat(answered("run", "-L", "web-1,db-1", "test.ping")).isEqualTo("db-1: web-1:");
        assertThat(frames("agent")).isEqualTo(own + 5);
        assertThat(frames("minion")).isEqualTo(targeted);
        assertThat(frames("broadcast")).isEqualTo(broadcast + 1);

        try (EventFollower replay = new EventFollower(fleet.server.url(), "?since=0&tag=salt/job/" + jid + "/ret/*",
                fleet.server.adminToken())) {
            await().atMost(Duration.ofSeconds(5)).until(() -> replay.events.size() == 3);
            assertThat(replay.events).extracting(e -> e.at("/data/id").asText()).containsExactlyInAnyOrder("web-1", "web-2", "db-1");
        }
    }

    @Test
    void badTargetsAreRefusedWithTheReason() {
        Fleet.Run bad = fleet.drover("run", "-C", "web-1 and (", "test.ping");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("compound target 'web-1 and (': it ends where a match is expected");
        assertThat(fleet.drover("run", "-N", "nope", "test.ping").err()).contains("unknown nodegroup 'nope' (known: everyone, webs)");
        assertThat(fleet.drover("run", "-S", "10.0.0.0/40", "test.ping").err()).contains("invalid CIDR");
        assertThat(fleet.drover("run", "-G", "os:Plan9", "test.ping").err()).contains("matches no accepted minion");
    }
}
