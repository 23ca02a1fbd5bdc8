package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Someone on the path between a new agent and the server reads every byte of its sign-in: the enrollment token is not
 * among them (it travels sealed to the master's key), and the agent is still admitted by it.
 */
class EnrollmentOnTheWireTest {
    @TempDir
    Path dir;

    @Test
    void theEnrollmentTokenIsNotInTheBytesOfASignIn() throws Exception {
        try (TestServer server = TestServer.start();
             ServerSocket relay = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            assertThat(server.post("/api/v1/businesses", server.adminToken(), Map.of("bk_biz_id", 2, "bk_biz_name", "shop")).status())
                    .isEqualTo(201);
            String token = server.post("/api/v1/enrollment-tokens", server.adminToken(), Map.of("name", "racks", "bk_biz_id", 2))
                    .body().path("token").asText();
            assertThat(token).startsWith("drv_enroll_");
            var master = server.server().master();
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            Thread.ofVirtual().start(() -> {
                while (!relay.isClosed()) {
                    try {
                        Socket agent = relay.accept();
                        Socket target = new Socket(InetAddress.getLoopbackAddress(), master.requestPort());
                        Thread.ofVirtual().start(() -> copy(agent, target, captured));
                        Thread.ofVirtual().start(() -> copy(target, agent, null));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            MinionConfig config = MinionConfig.of("web-1", "127.0.0.1", master.publishPort(), relay.getLocalPort())
                    .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200)).withEnrollToken(token);
            try (DroverAgent agent = DroverAgent.start(config, dir.resolve("web-1"), "test", new Grains.Placement(null, 0),
                    Duration.ofSeconds(30))) {
                await().atMost(Duration.ofSeconds(30)).until(() -> agent.state() == SaltMinion.State.CONNECTED);
            }
            assertThat(server.get("/api/v1/keys", server.adminToken()).body().toString()).contains("\"web-1\"").contains("accepted");
            String seen;
            synchronized (captured) {
                seen = captured.toString(StandardCharsets.ISO_8859_1);
            }
            assertThat(seen).as("the relay saw the sign-ins").contains("_auth").contains("web-1");
            assertThat(seen).doesNotContain(token).doesNotContain(token.substring("drv_enroll_".length(), 30));
        }
    }

    private static void copy(Socket from, Socket to, ByteArrayOutputStream capture) {
        try (from; to; InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (capture != null) {
                    synchronized (capture) {
                        capture.write(buffer, 0, n);
                    }
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // one side closed
        }
    }
}
