package io.drover.transport.minion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.transport.master.PublishQueue;
import io.drover.transport.master.SaltMaster;
import io.drover.transport.master.SessionKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A minion with two masters that share the session key (a cluster's servers), configured with Salt's patience
 * (30 s per request) and a 9 s reconnect jitter: when the master it uses dies (connections refused) or stops answering
 * (connections open, no reply to a heartbeat), it moves to the next within the bounded failover jitter and keeps
 * its session there (no second sign-in).
 */
class SaltMinionFailoverTest {
    final ZmtpMinionTransportTest.Handler handler = new ZmtpMinionTransportTest.Handler();
    final SessionKey shared = new SessionKey();
    final SaltMaster first = master();
    final SaltMaster second = master();
    final Proxy proxy = new Proxy(first.requestPort());
    SaltMinion minion;

    SaltMaster master() {
        return new SaltMaster(ZmtpMinionTransportTest.MASTER_KEY, handler, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED,
                SaltMaster.Limits.defaults(), new PublishQueue(), shared);
    }

    @AfterEach
    void stop() throws IOException {
        if (minion != null) {
            minion.close();
        }
        proxy.close();
        first.close();
        second.close();
    }

    /** Signs in to the first master (its requests through the proxy), the second listed next. */
    MinionConfig.Master signedIn() {
        MinionConfig.Master next = new MinionConfig.Master("127.0.0.1", second.publishPort(), second.requestPort());
        MinionConfig config = MinionConfig.of("ok-1", "127.0.0.1", 1, 1)
                .withMasters(List.of(new MinionConfig.Master("127.0.0.1", first.publishPort(), proxy.port()), next))
                .withTimeouts(Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofSeconds(9));
        minion = new SaltMinion(config, ZmtpMinionTransportTest.MINION_KEY, null, Targets.byId("ok-1"), (m, load) -> { },
                pem -> { });
        await().atMost(Duration.ofSeconds(15)).until(() -> minion.state() == SaltMinion.State.CONNECTED);
        assertThat(minion.signIns()).isEqualTo(1);
        return next;
    }

    @Test
    void aMasterThatIsGoneIsLeftAtOnceForTheNext() {
        MinionConfig.Master next = signedIn();
        long killed = System.nanoTime();
        proxy.close();
        first.close();
        await().atMost(SaltMinion.FAILOVER_JITTER.plusSeconds(2)).pollInterval(Duration.ofMillis(50))
                .until(() -> minion.master().equals(next) && minion.state() == SaltMinion.State.CONNECTED);
        System.out.printf("moved to the next master %d ms after the first died%n", (System.nanoTime() - killed) / 1_000_000);
        assertThat(minion.signIns()).as("kept its session key").isEqualTo(1);
        assertThat(minion.fireEvent("drover/agent/ok-1/x", Map.of())).as("its first request there is answered").isTrue();
    }

    @Test
    void aMasterThatStopsAnsweringHeartbeatsIsLeftForTheNext() {
        MinionConfig.Master next = signedIn();
        assertThat(minion.heartbeat("drover/agent/ok-1/heartbeat", Map.of(), Duration.ofSeconds(1))).isTrue();
        proxy.freeze(); // connections stay open; nothing gets through
        long silent = System.nanoTime();
        assertThat(minion.heartbeat("drover/agent/ok-1/heartbeat", Map.of(), Duration.ofSeconds(1)))
                .as("unanswered within the interval, not Salt's 3 x 30 s").isFalse();
        assertThat(System.nanoTime() - silent).isLessThan(Duration.ofSeconds(5).toNanos());
        await().atMost(SaltMinion.FAILOVER_JITTER.plusSeconds(3)).pollInterval(Duration.ofMillis(50))
                .until(() -> minion.master().equals(next) && minion.state() == SaltMinion.State.CONNECTED);
        assertThat(minion.signIns()).as("kept its session key").isEqualTo(1);
        assertThat(minion.heartbeat("drover/agent/ok-1/heartbeat", Map.of(), Duration.ofSeconds(1))).isTrue();
    }

    /** A TCP relay to a port that can be frozen: connections stay open and every byte is dropped. */
    static final class Proxy implements AutoCloseable {
        final ServerSocket server;
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        volatile boolean frozen;

        Proxy(int target) {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket in = server.accept();
                        Socket out;
                        try {
                            out = new Socket(InetAddress.getLoopbackAddress(), target);
                        } catch (IOException e) { // the target is gone: so is this connection (left open, the
                            closeQuietly(in);     // minion would wait out its handshake timeout on it)
                            continue;
                        }
                        sockets.add(in);
                        sockets.add(out);
                        if (server.isClosed()) { // accepted while the proxy closed, after it closed the others
                            closeQuietly(in);
                            closeQuietly(out);
                            return;
                        }
                        Thread.ofVirtual().start(() -> pump(in, out));
                        Thread.ofVirtual().start(() -> pump(out, in));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        void freeze() {
            frozen = true;
        }

        private void pump(Socket from, Socket to) {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (!frozen) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // either side closed
            }
            if (!frozen) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closing
            }
        }

        @Override
        public void close() {
            frozen = false;
            try {
                server.close();
            } catch (IOException e) {
                // closing
            }
            sockets.forEach(Proxy::closeQuietly);
        }
    }
}
