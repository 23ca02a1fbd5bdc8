package io.drover.server.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import org.junit.jupiter.api.Assumptions;

/** The real NATS the cluster tests use (127.0.0.1:4222, or DROVER_TEST_NATS_URL). */
public final class TestNats {
    public static final String URL = System.getenv().getOrDefault("DROVER_TEST_NATS_URL", "nats://127.0.0.1:4222");

    private TestNats() {
    }

    /** Skips the test when NATS is not reachable, except under CI ({@code CI} set), where it fails. */
    public static void require() {
        URI uri = URI.create(URL);
        boolean reachable;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2_000);
            reachable = true;
        } catch (IOException e) {
            reachable = false;
        }
        if (!reachable && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but NATS is not reachable at " + URL);
        }
        Assumptions.assumeTrue(reachable, "NATS is not reachable at " + URL);
    }
}
