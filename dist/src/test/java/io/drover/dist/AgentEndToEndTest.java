package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.server.testing.TestServer;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.minion.SaltMinion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real server and real agents on loopback, driven through the CLI: keys, remote execution, refusals. */
class AgentEndToEndTest {
    Fleet fleet;
    @TempDir
    Path roots;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(), roots);
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    DroverAgent agent(String id) {
        return fleet.agent(id);
    }

    Fleet.Run drover(String... args) {
        return fleet.drover(args);
    }

    @Test
    void aPendingKeyIsAcceptedThenTheAgentAnswersJobs() throws Exception {
        DroverAgent web1 = agent("web-1");
        DroverAgent web2 = agent("web-2");
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            String keys = drover("key", "list").out();
            return keys.contains("web-1  pending") && keys.contains("web-2  pending");
        });
        Fleet.Run refused = drover("run", "*", "test.ping");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("matches no accepted minion");

        assertThat(drover("key", "accept", "web-1").exit()).isZero();
        assertThat(drover("key", "accept", "web-2").exit()).isZero();
        await().atMost(Duration.ofSeconds(15)).until(() -> web1.state() == SaltMinion.State.CONNECTED
                && web2.state() == SaltMinion.State.CONNECTED);
        assertThat(Files.readString(roots.resolve("web-1/var/lib/drover-agent/minion_master.pub")))
                .isEqualTo(fleet.server.server().master().publicKeyPem());

        // PUB/SUB drops what is sent before the subscription lands: retry the first ping until both answer.
        await().atMost(Duration.ofSeconds(20)).until(() -> drover("run", "*", "test.ping", "--timeout", "3").exit() == 0);
        Fleet.Run ping = drover("run", "*", "test.ping");
        assertThat(ping.exit()).as(ping.err()).isZero();
        assertThat(ping.out()).contains("web-1:\n    true").contains("web-2:\n    true");

        Fleet.Run cmd = drover("run", "web-2", "cmd.run", "echo out; exit 3");
        assertThat(cmd.out()).contains("web-2:\n    out");
        assertThat(cmd.exit()).isEqualTo(1);

        // A return for a job that did not target the agent is not stored.
        String jid = fleet.server.post("/api/v1/jobs", fleet.server.adminToken(), java.util.Map.of("tgt", "web-1", "fun", "test.ping"))
                .body().path("jid").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> fleet.server.get("/api/v1/jobs/" + jid, fleet.server.adminToken()).body()
                .path("missing").isEmpty());
        assertThat(fleet.server.server().jobs().onReturn("web-2", JobReturn.fromWire(java.util.Map.of("jid", jid, "fun", "test.ping", "return", true))))
                .isEqualTo(true);
        assertThat(fleet.server.get("/api/v1/jobs/" + jid, fleet.server.adminToken()).body().path("returns").has("web-2")).isFalse();

        Fleet.Run echo = drover("run", "-L", "web-1,ghost", "test.echo", "héllo-ünicode");
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
        Fleet.Run after = drover("run", "web-1", "test.ping");
        assertThat(after.exit()).isEqualTo(1);
        assertThat(after.err()).contains("matches no accepted minion");
        // The session key was rotated and the key is no longer accepted: the agent's old session opens nothing.
        assertThat(fleet.server.server().keys().acceptedKey("web-1")).isNull();
        assertThat(drover("key", "list", "--state", "rejected").out()).contains("web-1  rejected");
    }

    @Test
    void aPackageTravelsOverTheFileserverAndIsVerifiedAndExtracted() throws Exception {
        DroverAgent web1 = agent("web-1");
        await().atMost(Duration.ofSeconds(15)).until(() -> drover("key", "list").out().contains("web-1  pending"));
        drover("key", "accept", "web-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> drover("run", "web-1", "test.ping", "--timeout", "3").exit() == 0);

        Path packages = Files.createDirectories(fleet.server.server().files().root().resolve("packages"));
        byte[] big = new byte[700_000];
        new java.util.Random(1).nextBytes(big);
        Path pkg = packages.resolve("exporter-1.0.0.tgz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(pkg));
             var tar = new io.drover.core.archive.TarWriter(out)) {
            tar.file("bin/exporter", 0755, "#!/bin/sh\necho exporter\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            tar.file("data/blob", 0644, big);
        }
        String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(pkg)));

        Fleet.Run installed = drover("run", "web-1", "plugin.install_package", "packages/exporter-1.0.0.tgz", sha,
                "/usr/local/gse/external_plugins/7/exporter");
        assertThat(installed.exit()).as(installed.out() + installed.err()).isZero();
        Path dir = roots.resolve("web-1/usr/local/gse/external_plugins/7/exporter");
        assertThat(Files.readAllBytes(dir.resolve("data/blob"))).isEqualTo(big);
        assertThat(drover("run", "web-1", "cmd.run", "usr/local/gse/external_plugins/7/exporter/bin/exporter").out())
                .contains("exporter");

        Fleet.Run traversal = drover("run", "web-1", "plugin.install_package", "../master.pem", sha, "/opt/x");
        assertThat(traversal.exit()).isEqualTo(1);
        assertThat(traversal.out()).contains("the server has no file '../master.pem'");
        Fleet.Run wrongSha = drover("run", "web-1", "plugin.install_package", "packages/exporter-1.0.0.tgz", "0".repeat(64), "/opt/x");
        assertThat(wrongSha.out()).contains("has sha256 " + sha);
        assertThat(roots.resolve("web-1/opt/x")).doesNotExist();
        assertThat(web1.state()).isEqualTo(SaltMinion.State.CONNECTED);

        // key=value arguments travel as keyword arguments, as with salt's CLI.
        Fleet.Run written = drover("run", "web-1", "file.write", "/etc/app.conf", "content=a=b", "mode=0640");
        assertThat(written.exit()).as(written.out() + written.err()).isZero();
        assertThat(Files.readString(roots.resolve("web-1/etc/app.conf"))).isEqualTo("a=b");
    }
}
