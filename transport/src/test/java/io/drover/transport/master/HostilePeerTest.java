package io.drover.transport.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.minion.ZmtpMinionTransport;
import io.drover.transport.zmtp.PortInUseException;
import io.drover.transport.zmtp.Zmtp;
import io.drover.transport.zmtp.ZmtpLoop;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a hostile client does to the master's ports, with a raw TCP socket and hand-made ZMTP bytes: each case must
 * cost only its own connection, after which three real minions still answer a job within 2 s and the master says it
 * is ready. (Before Drover's own ZMTP endpoints, the first two cases killed JeroMQ's I/O or publisher thread.)
 */
class HostilePeerTest {
    static final RSAPrivateCrtKey MINION_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();

    final MasterMinionTest.Keys keys = new MasterMinionTest.Keys() {
        @Override
        public KeyDecision decideKey(String id, String pem, Map<?, ?> load) {
            decisions.put(id, KeyDecision.ACCEPTED);
            return super.decideKey(id, pem, load);
        }

        @Override
        public Object onReturn(String id, Map<?, ?> load) {
            return true; // (the minions' listener counts what ran; 100,000 returns kept in a copy-on-write list is slow)
        }
    };
    SaltMaster master;
    ZmtpLoop sharedLoop;
    final List<SaltMinion> minions = new ArrayList<>();
    /** jid → minions that returned it. */
    final Map<String, Set<String>> returned = new ConcurrentHashMap<>();
    final AtomicInteger jobCounter = new AtomicInteger();

    @BeforeEach
    void start() {
        master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);
    }

    @AfterEach
    void stop() {
        minions.forEach(SaltMinion::close);
        if (sharedLoop != null) {
            sharedLoop.close();
        }
        master.close();
    }

    /** Minions as agents run them (each on a loop of its own), or many on one shared loop as in the load tool. */
    List<String> startMinions(int count, boolean shared) {
        List<String> ids = new ArrayList<>();
        if (shared) {
            sharedLoop = new ZmtpLoop("zmtp-hostile-test");
        }
        for (int i = 1; i <= count; i++) {
            String id = "host-" + i;
            MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                    .withTimeouts(Duration.ofSeconds(5), Duration.ofMillis(200), Duration.ofMillis(100));
            SaltMinion.JobListener listener = (minion, load) -> {
                returned.computeIfAbsent((String) load.get("jid"), j -> ConcurrentHashMap.newKeySet()).add(minion.id());
                minion.sendReturn(Map.of("jid", load.get("jid"), "fun", load.get("fun"), "return", true, "retcode", 0));
            };
            minions.add(shared
                    ? new SaltMinion(config, MINION_KEY, null, Targets.byId(id), listener, pem -> { },
                            new ZmtpMinionTransport(config, sharedLoop))
                    : new SaltMinion(config, MINION_KEY, null, Targets.byId(id), listener, pem -> { }));
            ids.add(id);
        }
        List<String> probes = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            probes.add(publish(ids));
            return probes.stream().anyMatch(jid -> returned.getOrDefault(jid, Set.of()).size() == ids.size());
        });
        return ids;
    }

    String publish(List<String> ids) {
        String jid = String.format("2026112400000%07d", jobCounter.incrementAndGet());
        master.publish(new LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", ids, "tgt_type", "list",
                "jid", jid, "ret", "", "user", "drover")), ids);
        return jid;
    }

    /** Every minion answers a new job within 2 s, and the master is ready. */
    void everyMinionStillAnswers(List<String> ids) {
        String jid = publish(ids);
        await().atMost(Duration.ofSeconds(2)).until(() -> returned.getOrDefault(jid, Set.of()).size() == ids.size());
        assertThat(master.ready()).isTrue();
    }


    /** Sends the bytes on a fresh connection and waits for the master to close it; true when it did within 7 s. */
    static boolean closedByPeer(int port, byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(7000);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            try {
                while (in.read(buffer) >= 0) {
                    // the master's greeting and READY; read until it closes
                }
                return true;
            } catch (java.net.SocketException e) {
                return true; // reset: closed as well
            } catch (java.net.SocketTimeoutException e) {
                return false;
            }
        }
    }

    @Test
    void aHugeFrameHeaderBeforeTheHandshakeCostsOnlyItsConnection() throws Exception {
        List<String> ids = startMinions(3, false);
        for (int port : new int[] {master.requestPort(), master.publishPort()}) {
            for (long size : new long[] {1L << 62, 1L << 30, 200_000_000L, -1L, Long.MIN_VALUE}) {
                // Greeting, then a message header announcing `size` bytes, before READY.
                assertThat(closedByPeer(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.longHeader(0, size))))
                        .as("port %d, size %d", port, size).isTrue();
                // The same after a complete handshake.
                assertThat(closedByPeer(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER"), Zmtp.longHeader(0, size))))
                        .as("port %d, size %d after READY", port, size).isTrue();
            }
            assertThat(closedByPeer(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes())).isTrue();
        }
        assertThat(master.requestStats().protocolErrors()).containsKeys("oversize", "greeting");
        assertThat(master.publishStats().protocolErrors()).containsKey("oversize");
        assertThat(master.restarts()).isZero();
        everyMinionStillAnswers(ids);
    }

    @Test
    void aHugeOrExcessiveSubscriptionCostsOnlyItsConnection() throws Exception {
        List<String> ids = startMinions(3, false);
        byte[] handshake = Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("SUB"));
        byte[] tenKb = new byte[10_000];
        java.util.Arrays.fill(tenKb, (byte) 'a');
        assertThat(closedByPeer(master.publishPort(), Zmtp.bytes(ByteBuffer.wrap(handshake), Zmtp.subscription(tenKb)))).isTrue();
        assertThat(closedByPeer(master.publishPort(), Zmtp.bytes(ByteBuffer.wrap(handshake), Zmtp.subscription(new byte[65])))).isTrue();
        List<ByteBuffer> many = new ArrayList<>(List.of(ByteBuffer.wrap(handshake)));
        for (int i = 0; i < 9; i++) {
            many.add(Zmtp.subscription(("topic-" + i).getBytes()));
        }
        assertThat(closedByPeer(master.publishPort(), Zmtp.bytes(many.toArray(ByteBuffer[]::new)))).isTrue();
        // A 10 KB SUBSCRIBE command (ZMTP 3.1 form) as well.
        byte[] command = new byte[10 + 10_000];
        System.arraycopy(new byte[] {9, 'S', 'U', 'B', 'S', 'C', 'R', 'I', 'B', 'E'}, 0, command, 0, 10);
        assertThat(closedByPeer(master.publishPort(), Zmtp.bytes(ByteBuffer.wrap(handshake), Zmtp.longHeader(Zmtp.COMMAND, command.length),
                ByteBuffer.wrap(command)))).isTrue();
        assertThat(master.publishStats().protocolErrors()).containsKeys("oversize", "subscription");
        everyMinionStillAnswers(ids);
    }

    @Test
    void connectionsOpenedDroppedAndLeftHalfOpenAreClosedAndForgotten() throws Exception {
        List<String> ids = startMinions(3, false);
        long before = master.requestStats().openConnections();
        List<Socket> halfOpen = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            new Socket("127.0.0.1", master.requestPort()).close();
            Socket s = new Socket("127.0.0.1", i % 2 == 0 ? master.requestPort() : master.publishPort());
            s.getOutputStream().write(Zmtp.greeting(), 0, 5); // a greeting that never finishes
            halfOpen.add(s);
        }
        // The handshake deadline closes every half-open connection.
        await().atMost(Duration.ofSeconds(15)).until(() -> master.requestStats().openConnections() == before);
        assertThat(master.requestStats().protocolErrors().get("handshake")).isGreaterThanOrEqualTo(250);
        for (Socket s : halfOpen) {
            s.close();
        }
        everyMinionStillAnswers(ids);
    }

    @Test
    void fiftyConcurrentJobsToAHundredMinionsAllArriveRoundAfterRound() throws Exception {
        List<String> ids = startMinions(100, true);
        for (int round = 0; round < Integer.getInteger("drover.stress.rounds", 20); round++) {
            List<String> jids = new CopyOnWriteArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> publishers = new ArrayList<>();
            for (int j = 0; j < 50; j++) {
                publishers.add(Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    jids.add(publish(ids));
                }));
            }
            go.countDown();
            for (Thread t : publishers) {
                t.join();
            }
            int r = round;
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(jids).as("round %d", r)
                    .allSatisfy(jid -> assertThat(returned.getOrDefault(jid, Set.of())).hasSize(100)));
        }
    }

    @Test
    void aBusyPortIsNamedInOneLine() {
        assertThatThrownBy(() -> new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, master.requestPort(),
                SaltMaster.PublishMode.FILTERED)).isInstanceOf(PortInUseException.class)
                .hasMessage("port " + master.requestPort() + " is already in use on 127.0.0.1");
        assertThatThrownBy(() -> new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", master.publishPort(), 0,
                SaltMaster.PublishMode.FILTERED)).isInstanceOf(PortInUseException.class)
                .hasMessage("port " + master.publishPort() + " is already in use on 127.0.0.1");
    }

    @Test
    void aDeadSocketLoopIsRebuiltOnTheSamePortAndMinionsComeBack() throws Exception {
        List<String> ids = startMinions(3, false);
        int requestPort = master.requestPort();
        List<String> restarted = new CopyOnWriteArrayList<>();
        SaltMaster watched = master;
        master.close();
        MasterMinionTest.Keys reporting = new MasterMinionTest.Keys() {
            @Override
            public KeyDecision decideKey(String id, String pem, Map<?, ?> load) {
                decisions.put(id, KeyDecision.ACCEPTED);
                return super.decideKey(id, pem, load);
            }

            @Override
            public void onTransportRestart(String what) {
                restarted.add(what);
            }
        };
        master = new SaltMaster(MasterMinionTest.MASTER_KEY, reporting, "127.0.0.1", watched.publishPort(), requestPort,
                SaltMaster.PublishMode.FILTERED);
        everyMinionStillAnswersEventually(ids);
        for (boolean requestSide : new boolean[] {true, false}) {
            master.killLoopForTest(requestSide);
            await().atMost(Duration.ofSeconds(5)).until(() -> !master.ready() || master.restarts() > 0);
            await().atMost(Duration.ofSeconds(5)).until(() -> master.ready());
            everyMinionStillAnswersEventually(ids);
        }
        assertThat(master.restarts()).isEqualTo(2);
        assertThat(restarted).containsExactly("request port " + requestPort, "publish port " + master.publishPort());
        assertThat(master.requestPort()).isEqualTo(requestPort);
    }

    /** After a master restart minions sign in again on their own schedule: wait for that, then the 2 s rule holds. */
    void everyMinionStillAnswersEventually(List<String> ids) {
        List<String> probes = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
            probes.add(publish(ids));
            return probes.stream().anyMatch(jid -> returned.getOrDefault(jid, Set.of()).size() == ids.size());
        });
        everyMinionStillAnswers(ids);
    }

    @Test
    void closingWithHostileConnectionsOpenTakesUnderTenSeconds() throws Exception {
        startMinions(3, false);
        List<Socket> open = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Socket s = new Socket("127.0.0.1", master.requestPort());
            s.getOutputStream().write(Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER"), Zmtp.longHeader(0, 10_000_000)));
            s.getOutputStream().write(new byte[100_000]); // a large request, sent slowly: never finished
            open.add(s);
        }
        long start = System.nanoTime();
        master.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        for (Socket s : open) {
            s.close();
        }
        master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);
    }
}
