package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Salt's master_finger: an agent given the master key's fingerprint signs in to that master only. */
class MasterFingerTest {
    @TempDir
    Path dir;

    DroverAgent agent(TestServer server, String id, String finger) {
        var master = server.server().master();
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200)).withMasterFinger(finger);
        return DroverAgent.start(config, dir.resolve(id), "test", new Grains.Placement(null, 0), Duration.ofSeconds(30));
    }

    @Test
    void anAgentGivenAnotherFingerprintRefusesTheMasterAndTheRightOneSignsIn() throws Exception {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "web-*"))) {
            String finger = server.get("/api/v1/master", server.adminToken()).body().path("fingerprint").asText();
            assertThat(finger).isEqualTo(RsaKeys.fingerprint(server.server().master().publicKeyPem()));
            String other = RsaKeys.fingerprint(RsaKeys.publicPem((java.security.interfaces.RSAPublicKey) RsaKeys.generate().getPublic()));
            try (DroverAgent wrong = agent(server, "web-1", other);
                 DroverAgent right = agent(server, "web-2", finger.replace(":", "").toUpperCase(java.util.Locale.ROOT))) {
                await().atMost(Duration.ofSeconds(20)).until(() -> right.state() == SaltMinion.State.CONNECTED);
                await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                        .until(() -> wrong.state() != SaltMinion.State.CONNECTED);
                assertThat(wrong.signIns()).isZero();
                assertThat(Path.of(dir.toString(), "web-1")).as("nothing pinned").satisfies(p ->
                        assertThat(java.nio.file.Files.walk(p).map(Path::toString).filter(f -> f.contains("master")).toList()).isEmpty());
            }
            Fleet.Run shown = new Fleet(server, dir).drover("key", "finger", "--master");
            assertThat(shown.exit()).isZero();
            assertThat(shown.out().strip()).isEqualTo(finger);
        }
    }
}
