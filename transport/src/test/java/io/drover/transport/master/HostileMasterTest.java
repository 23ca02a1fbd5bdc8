package io.drover.transport.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.minion.ZmtpMinionTransport;
import io.drover.transport.wire.SaltPack;
import io.drover.transport.zmtp.Zmtp;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An agent's minion faced with what a hostile master or a man in the middle could send: garbage, deeply nested
 * msgpack, unsigned, forged, replayed publishes, a compound target thousands of levels deep, and at the ZMTP level a
 * frame header announcing 2^62 bytes. It drops each one, its loop stays alive, and it keeps answering its real master.
 */
class HostileMasterTest {
    static final RSAPrivateCrtKey MINION_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
    static final RSAPrivateCrtKey FORGER_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();

    final MasterMinionTest.Keys keys = new MasterMinionTest.Keys();
    SaltMaster master;
    SaltMinion minion;
    final List<String> ran = new CopyOnWriteArrayList<>();
    final AtomicInteger jobs = new AtomicInteger();

    @BeforeEach
    void start() {
        master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.BROADCAST);
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        MinionConfig config = MinionConfig.of("web-1", "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMillis(100))
                .withSharedKeyOnly(); // the checks of what comes under the shared key, signed (MasterFuzzTest covers both)
        minion = new SaltMinion(config, MINION_KEY, null, Targets.byId("web-1"), (m, load) -> {
            ran.add((String) load.get("jid"));
            m.sendReturn(Map.of("jid", load.get("jid"), "fun", "test.ping", "return", true, "retcode", 0));
        }, pem -> { });
        List<String> probes = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            probes.add(job("web-1", "glob"));
            return probes.stream().anyMatch(ran::contains);
        });
    }

    @AfterEach
    void stop() {
        minion.close();
        master.close();
    }

    String job(Object tgt, String type) {
        String jid = String.format("2026112400001%07d", jobs.incrementAndGet());
        master.publish(new LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", tgt, "tgt_type", type,
                "jid", jid, "ret", "", "user", "drover")), null);
        return jid;
    }

    void stillAnswersItsRealMaster() {
        String jid = job("web-1", "glob");
        await().atMost(Duration.ofSeconds(2)).until(() -> ran.contains(jid));
        assertThat(minion.loopAlive()).isTrue();
        assertThat(minion.state()).isEqualTo(SaltMinion.State.CONNECTED);
    }

    static Object nested(int depth) {
        Object value = "web-1";
        for (int i = 0; i < depth; i++) {
            value = List.of(value);
        }
        return value;
    }

    /** A msgpack array header nested {@code depth} times: too deep for SaltPack.pack to write, so written by hand. */
    static byte[] deepMsgpack(int depth) {
        byte[] bytes = new byte[depth + 1];
        java.util.Arrays.fill(bytes, (byte) 0x91); // fixarray of one element
        bytes[depth] = (byte) 0xc0;
        return bytes;
    }

    Map<String, Object> load(String jid, long serial) {
        return new LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", "web-1", "tgt_type", "glob",
                "jid", jid, "serial", serial));
    }

    byte[] envelope(byte[] ct, byte[] sig) {
        Map<String, Object> e = new LinkedHashMap<>(Map.of("enc", "aes", "load", ct));
        if (sig != null) {
            e.put("sig", sig);
        }
        return SaltPack.pack(e);
    }

    @Test
    void garbageDeepUnsignedForgedAndReplayedPublishesAreDroppedAndTheMinionKeepsAnswering() {
        master.publishRawForTest(new byte[] {(byte) 0xc1, 0, 1});
        master.publishRawForTest(new byte[100_000]);
        master.publishRawForTest(deepMsgpack(100_000));
        // Signed by the master but not a job (no serial, a nested "fun"): dropped before it can move the serial.
        byte[] deepCt = master.sessionForTest().dumps(Map.of("fun", nested(60), "jid", nested(60)), null);
        master.publishRawForTest(envelope(deepCt, Rsa.signSha1(MasterMinionTest.MASTER_KEY, deepCt)));
        byte[] unsigned = master.sessionForTest().dumps(load("20261124000020000001", Long.MAX_VALUE - 2), null);
        master.publishRawForTest(envelope(unsigned, null));
        byte[] forged = master.sessionForTest().dumps(load("20261124000020000002", Long.MAX_VALUE - 3), null);
        master.publishRawForTest(envelope(forged, Rsa.signSha1(FORGER_KEY, forged)));
        stillAnswersItsRealMaster();
        assertThat(ran).doesNotContain("20261124000020000001", "20261124000020000002");

        // Replay: a correctly signed publish whose serial the minion has already passed.
        byte[] replayed = master.sessionForTest().dumps(load("20261124000020000003", 1), null);
        master.publishRawForTest(envelope(replayed, Rsa.signSha1(MasterMinionTest.MASTER_KEY, replayed)));
        stillAnswersItsRealMaster();
        assertThat(ran).doesNotContain("20261124000020000003");
    }

    @Test
    void aCompoundTargetThousandsOfLevelsDeepIsDroppedAndTheLoopLives() {
        for (int depth : new int[] {500, 5_000, 20_000}) {
            String deep = "( ".repeat(depth) + "web-1" + " )".repeat(depth);
            String notNot = "not ".repeat(depth) + "web-1";
            String deepJid = job(deep, "compound");
            String notJid = job(notNot, "compound");
            stillAnswersItsRealMaster();
            assertThat(ran).doesNotContain(deepJid, notJid);
        }
        String wide = String.join(" or ", java.util.Collections.nCopies(5_000, "db-*")) + " or web-1";
        String wideJid = job(wide, "compound");
        await().atMost(Duration.ofSeconds(2)).until(() -> ran.contains(wideJid));
    }

    @Test
    void aZmtpFrameAnnouncingTwoToTheSixtyTwoBytesClosesOnlyThatSubscription() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket s = fake.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    out.write(Zmtp.greeting());
                    in.readNBytes(Zmtp.GREETING_LENGTH);
                    byte[] ready = new byte[Zmtp.ready("PUB").remaining()];
                    Zmtp.ready("PUB").get(ready);
                    out.write(ready);
                    out.write(ByteBuffer.allocate(9).put((byte) Zmtp.LONG).putLong(1L << 62).array());
                    out.flush();
                    in.readAllBytes();
                } catch (java.io.IOException ignored) {
                    // the minion closed the connection: what the test expects
                }
            });
            MinionConfig config = MinionConfig.of("probe", "127.0.0.1", fake.getLocalPort(), master.requestPort());
            try (ZmtpMinionTransport transport = new ZmtpMinionTransport(config)) {
                List<byte[]> received = new ArrayList<>();
                long start = System.nanoTime();
                transport.subscribe("127.0.0.1", fake.getLocalPort(), List.of(new byte[0]), received::add, () -> true);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                assertThat(received).isEmpty();
            }
        }
        stillAnswersItsRealMaster();
    }
}
