package io.drover.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Idle or slow clients cannot hold more than {@code http-max-connections} of the API port's connections (each an open
 * file the agents' connections need): past the limit a connection waits until one closes.
 */
class ConnectionLimitTest {

    @Test
    void pastTheLimitAConnectionWaitsUntilOneCloses() throws Exception {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.HTTP_MAX_CONNECTIONS, "3"))) {
            URI url = URI.create(server.url());
            List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Socket s = new Socket(url.getHost(), url.getPort());
                    s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)); // never ends
                    idle.add(s);
                }
                CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> get(url));
                await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> !waiting.isDone());
                idle.removeFirst().close();
                assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS)).startsWith("HTTP/1.1 200");
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    private static String get(URI url) {
        try (Socket s = new Socket(url.getHost(), url.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
