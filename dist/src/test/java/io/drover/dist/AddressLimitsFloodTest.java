package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.SaltPack;
import io.drover.transport.zmtp.ReceiveBudget;
import io.drover.transport.zmtp.Zmtp;
import io.drover.transport.zmtp.ZmtpDecoder;
import io.drover.transport.zmtp.ZmtpLimits;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded admission on the request port per source address, against a real server: a flooder on 127.0.0.2 opens
 * connections past its limit (the rest are closed at accept) and sends sign-ins past its limit for the minute (the
 * rest are answered with a plain refusal, without RSA work or a pending key); both are counted in /metrics. Agents on
 * 127.0.0.1, which is exempt, sign in and answer test.ping throughout, and the server stays ready.
 */
class AddressLimitsFloodTest {
    static final int MAX_CONNECTIONS = 20;
    static final int SIGN_INS_PER_MINUTE = 10;
    static final InetAddress FLOODER = address("127.0.0.2");
    @TempDir
    Path roots;

    static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A raw ZMTP DEALER from {@link #FLOODER}: handshake done, frames written and read by hand. */
    static final class Dealer implements AutoCloseable {
        final Socket socket = new Socket();
        final ZmtpDecoder decoder = new ZmtpDecoder(ZmtpLimits.client(16 << 20), ReceiveBudget.unlimited());
        final List<List<byte[]>> received = new ArrayList<>();
        boolean fedFirstByte;

        Dealer(int port) throws IOException {
            socket.bind(new InetSocketAddress(FLOODER, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(10_000);
        }

        /** True when the server greets this connection; false when it closed it at once. */
        boolean greeted() {
            try {
                int first = socket.getInputStream().read();
                return first == 0xFF;
            } catch (IOException e) {
                return false; // reset
            }
        }

        void handshake() throws IOException {
            socket.getOutputStream().write(Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER")));
        }

        void send(byte[] payload) throws IOException {
            socket.getOutputStream().write(Zmtp.bytes(Zmtp.message(new byte[0], payload)));
        }

        /** Reads until {@code n} messages have arrived (the greeting's first byte was read by {@link #greeted}). */
        List<List<byte[]>> receive(int n) throws Exception {
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            if (!fedFirstByte) {
                fedFirstByte = true;
                decoder.feed(ByteBuffer.wrap(new byte[] {(byte) 0xFF}), sink());
            }
            while (received.size() < n) {
                int read = in.read(buffer);
                if (read < 0) {
                    throw new IOException("closed after " + received.size() + " messages");
                }
                decoder.feed(ByteBuffer.wrap(buffer, 0, read), sink());
            }
            return received;
        }

        private ZmtpDecoder.Sink sink() {
            return new ZmtpDecoder.Sink() {
                @Override
                public void message(List<byte[]> frames) {
                    received.add(frames);
                }

                @Override
                public void command(String name, byte[] body) {
                    // the server's READY
                }
            };
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static int pingAnswers(TestServer server, int seconds) {
        TestServer.Response started = server.post("/api/v1/jobs", server.adminToken(), Map.of("tgt", "web-*", "fun", "test.ping"));
        assertThat(started.status()).as(started.text()).isEqualTo(201);
        var job = server.get("/api/v1/jobs/" + started.body().path("jid").asText() + "?wait=" + seconds, server.adminToken()).body();
        int answered = 0;
        for (var r : job.path("returns")) {
            answered += r.path("ret").asBoolean() ? 1 : 0;
        }
        return answered;
    }

    static void stillServes(TestServer server, int agents) {
        await().atMost(Duration.ofSeconds(20)).until(() -> pingAnswers(server, 3) == agents);
        assertThat(server.get("/readyz", null).status()).isEqualTo(200);
    }

    static String metric(TestServer server, String name) {
        return server.get("/metrics", null).text().lines().filter(l -> l.startsWith(name)).findFirst().orElse("(none)");
    }

    @Test
    void oneAddressCanNeitherHoldEverySlotNorSignInWithoutEndWhileExemptAgentsGoOn() throws Exception {
        try (Fleet fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "web-*",
                Setting.SALT_MAX_CONNECTIONS_PER_ADDRESS, Integer.toString(MAX_CONNECTIONS),
                Setting.SALT_SIGN_INS_PER_ADDRESS_PER_MINUTE, Integer.toString(SIGN_INS_PER_MINUTE),
                Setting.SALT_ADDRESS_LIMITS_EXEMPT, "127.0.0.1/32")), roots)) {
            TestServer server = fleet.server;
            int port = server.server().master().requestPort();
            DroverAgent web1 = fleet.agent("web-1");
            stillServes(server, 1);

            // 1. Connections from one address past its limit: closed at accept; the limit's worth stay and hold.
            List<Dealer> held = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < 3 * MAX_CONNECTIONS; i++) {
                Dealer d = new Dealer(port);
                if (d.greeted()) {
                    d.handshake();
                    held.add(d);
                } else {
                    refused++;
                    d.close();
                }
            }
            assertThat(held).hasSize(MAX_CONNECTIONS);
            assertThat(refused).isEqualTo(2 * MAX_CONNECTIONS);
            assertThat(metric(server, "drover_salt_address_connections_refused_total{port=\"request\"}"))
                    .endsWith(" " + 2 * MAX_CONNECTIONS + ".0");
            // an exempt agent signs in while the flooder holds its slots, and both answer
            DroverAgent web2 = fleet.agent("web-2");
            stillServes(server, 2);
            // the flooder's connections close: its slots are free again
            for (Dealer d : held) {
                d.close();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                try (Dealer again = new Dealer(port)) {
                    return again.greeted();
                }
            });

            // 2. Sign-ins from one address past its limit for the minute: a plain refusal, no signature, no pending key.
            int flood = 200;
            String pub = RsaKeys.publicPem((java.security.interfaces.RSAPublicKey) RsaKeys.generate().getPublic());
            int pendingBefore = server.server().keys().list("pending").size();
            int signed = 0;
            int limited = 0;
            try (Dealer flooder = new Dealer(port)) {
                assertThat(flooder.greeted()).isTrue();
                flooder.handshake();
                for (int i = 0; i < flood; i++) {
                    Map<String, Object> load = new LinkedHashMap<>();
                    load.put("cmd", "_auth");
                    load.put("id", "flood-" + i);
                    load.put("nonce", Messages.nonce());
                    load.put("pub", pub);
                    flooder.send(SaltPack.pack(Messages.envelope("clear", load)));
                }
                for (List<byte[]> reply : flooder.receive(flood)) {
                    Object answer = SaltPack.unpack(reply.get(1));
                    if (answer instanceof Map<?, ?> m && m.get("sig") != null) {
                        signed++;
                    } else if (Messages.SIGN_IN_LIMITED.equals(answer)) {
                        limited++;
                    }
                }
            }
            // (a fixed window: the minute may turn during the flood, letting in up to twice the limit)
            assertThat(signed).isBetween(SIGN_INS_PER_MINUTE, 2 * SIGN_INS_PER_MINUTE);
            assertThat(limited).isEqualTo(flood - signed);
            assertThat(server.server().keys().list("pending")).hasSize(pendingBefore + signed);
            assertThat(metric(server, "drover_salt_address_sign_ins_refused_total")).endsWith(" " + limited + ".0");

            // a new exempt agent still signs in, and the fleet answers; the server is ready
            fleet.agent("web-3");
            stillServes(server, 3);
            assertThat(List.of(web1, web2)).allMatch(a -> a.state() == io.drover.transport.minion.SaltMinion.State.CONNECTED);
        }
    }
}
