package io.drover.transport.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.SaltPack;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/** A real master and real minions over loopback TCP: handshake outcomes, targeted publishes, returns, attacks. */
class MasterMinionTest {
    static final RSAPrivateCrtKey MASTER_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();

    /** Keys decided by a map: id → decision; accepted keys remembered. */
    static class Keys implements MasterHandler {
        final Map<String, KeyDecision> decisions = new ConcurrentHashMap<>();
        final Map<String, String> accepted = new ConcurrentHashMap<>();
        final List<Map<?, ?>> returns = new CopyOnWriteArrayList<>();
        final List<Map<?, ?>> events = new CopyOnWriteArrayList<>();
        final List<Map<?, ?>> pillars = new CopyOnWriteArrayList<>();
        final Map<String, AgentMode> modes = new ConcurrentHashMap<>();
        volatile boolean requireSigned;
        /** The enrollment token each sign-in presented, as the master opened it. */
        final Map<String, String> enrollTokens = new ConcurrentHashMap<>();

        @Override
        public void onMode(String id, AgentMode mode) {
            modes.put(id, mode);
        }

        @Override
        public AgentMode agentMode(String id) {
            return modes.get(id);
        }

        @Override
        public boolean requireSignedMessages() {
            return requireSigned;
        }

        @Override
        public KeyDecision decideKey(String id, String pem, Map<?, ?> load) {
            if (load.get(Messages.ENROLL_OPENED) instanceof String token) {
                enrollTokens.put(id, token);
            }
            KeyDecision d = decisions.getOrDefault(id, KeyDecision.PENDING);
            if (d == KeyDecision.ACCEPTED) {
                accepted.put(id, pem);
            }
            return d;
        }

        @Override
        public String acceptedKey(String id) {
            return decisions.get(id) == KeyDecision.ACCEPTED ? accepted.get(id) : null;
        }

        @Override
        public Object onReturn(String id, Map<?, ?> load) {
            if (!isWarmUp(load)) {
                returns.add(load);
            }
            return true;
        }

        @Override
        public Object onEvent(String id, Map<?, ?> load) {
            events.add(load);
            return true;
        }

        @Override
        public Map<String, Object> onPillar(String id, Map<?, ?> load) {
            pillars.add(load);
            return Map.of();
        }

        @Override
        public Object onCommand(String id, String cmd, Map<?, ?> load) {
            return cmd.equals("_file_list") ? List.of("files of " + id) : null;
        }
    }

    Keys keys;
    SaltMaster master;
    final List<SaltMinion> minions = new CopyOnWriteArrayList<>();
    final Map<String, List<Map<?, ?>>> jobs = new ConcurrentHashMap<>();
    /** Warm-up jobs each minion received; kept apart from {@link #jobs} so that a late one never counts as a test's. */
    final Map<String, List<Map<?, ?>>> warmedUp = new ConcurrentHashMap<>();

    static boolean isWarmUp(Map<?, ?> load) {
        return String.valueOf(load.get("jid")).startsWith("warmup");
    }

    @BeforeEach
    void start() {
        keys = new Keys();
        master = new SaltMaster(MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);
    }

    @AfterEach
    void stop() {
        minions.forEach(SaltMinion::close);
        master.close();
    }

    SaltMinion minion(String id) {
        KeyPair pair = RsaKeys.generate();
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(100));
        jobs.put(id, new CopyOnWriteArrayList<>());
        SaltMinion m = new SaltMinion(config, (RSAPrivateCrtKey) pair.getPrivate(), null, Targets.byId(id),
                (minion, load) -> {
                    (isWarmUp(load) ? warmedUp.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()) : jobs.get(id)).add(load);
                    minion.sendReturn(Map.of("jid", load.get("jid"), "fun", load.get("fun"), "fun_args", List.of(),
                            "return", true, "retcode", 0, "success", true));
                }, pem -> { });
        minions.add(m);
        return m;
    }

    /**
     * Waits until every minion is connected and its SUB socket receives (PUB/SUB drops what is sent before the
     * subscription reaches the publisher). Warm-up jobs, and their returns, however late, are kept out of what the
     * tests count.
     */
    void awaitSubscribed() {
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (SaltMinion m : minions) {
                if (m.state() == SaltMinion.State.CONNECTED && !warmedUp.containsKey(m.id())) {
                    master.publish(ping("warmup" + System.nanoTime(), m.id(), "glob"), List.of(m.id()));
                }
            }
            return minions.stream().allMatch(m -> m.state() == SaltMinion.State.CONNECTED && warmedUp.containsKey(m.id()));
        });
    }

    Map<String, Object> ping(String jid, Object tgt, String type) {
        return new java.util.LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", tgt, "tgt_type", type,
                "jid", jid, "ret", "", "user", "drover"));
    }

    @Test
    void handshakeOutcomesFollowTheKeyDecision() {
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        keys.decisions.put("web-2", KeyDecision.REJECTED);
        keys.decisions.put("web-4", KeyDecision.FULL);
        SaltMinion accepted = minion("web-1");
        SaltMinion rejected = minion("web-2");
        SaltMinion pending = minion("web-3");
        SaltMinion full = minion("web-4");
        await().atMost(Duration.ofSeconds(10)).until(() -> accepted.state() == SaltMinion.State.CONNECTED
                && rejected.state() == SaltMinion.State.REJECTED && pending.state() == SaltMinion.State.PENDING
                && full.state() == SaltMinion.State.FULL);
        keys.decisions.put("web-3", KeyDecision.ACCEPTED);
        await().atMost(Duration.ofSeconds(10)).until(() -> pending.state() == SaltMinion.State.CONNECTED);
    }

    @Test
    void aPublishReachesOnlyItsTargetsAndTheirReturnsArrive() throws Exception {
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        keys.decisions.put("web-2", KeyDecision.ACCEPTED);
        keys.decisions.put("db-1", KeyDecision.ACCEPTED);
        SaltMinion a = minion("web-1");
        SaltMinion b = minion("web-2");
        SaltMinion c = minion("db-1");
        awaitSubscribed();
        master.publish(ping("20260101000000000001", "web-*", "glob"), List.of("web-1", "web-2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys.returns.size() == 2);
        assertThat(keys.returns.stream().map(r -> String.valueOf(r.get("id"))).toList())
                .containsExactlyInAnyOrder("web-1", "web-2");
        assertThat(jobs.get("db-1")).isEmpty();

        // A broadcast publish that targets web-1 only by glob is dropped by the others themselves.
        master.publish(ping("20260101000000000002", "web-1", "glob"), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> keys.returns.size() == 3);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .until(() -> jobs.get("web-2").size() == 1 && jobs.get("db-1").isEmpty());
        assertThat(a.fireEvent("drover/agent/web-1/heartbeat", Map.of("ok", true))).isTrue();
        assertThat(keys.events).singleElement().satisfies(e -> assertThat(e.get("tag")).isEqualTo("drover/agent/web-1/heartbeat"));
    }

    /**
     * Publish serials follow the clock (microseconds, or one more than the last): a server that takes over or restarts
     * numbers above every frame an earlier one sent, so an old frame replayed to an agent after it moved cannot hold
     * the agent's serial above the new server's (it would drop the new server's jobs as replays until it signed in).
     */
    @Test
    void publishSerialsFollowTheClockSoALaterServerNumbersAboveAnEarlierOne() {
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        minion("web-1");
        awaitSubscribed();
        long before = System.currentTimeMillis() * 1000;
        master.publish(ping("20260101000000000021", "web-1", "glob"), List.of("web-1"));
        master.publish(ping("20260101000000000022", "web-1", "glob"), List.of("web-1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.get("web-1").size() == 2);
        // The minion runs each job on a thread of its own, so they may be recorded in either order.
        long first = serialOf("20260101000000000021");
        long second = serialOf("20260101000000000022");
        assertThat(first).isGreaterThanOrEqualTo(before);
        assertThat(second).isGreaterThan(first);
    }

    private long serialOf(String jid) {
        return jobs.get("web-1").stream().filter(j -> jid.equals(j.get("jid"))).map(j -> (Long) j.get("serial"))
                .findFirst().orElseThrow();
    }

    @Test
    void replayedAndTamperedPublishesAreDropped() throws Exception {
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        SaltMinion m = minion("web-1");
        awaitSubscribed();
        master.publish(ping("20260101000000000003", "web-1", "glob"), List.of("web-1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.get("web-1").size() == 1);

        // Replay: the same serial again, correctly encrypted and signed.
        m.onPublish(publishFrame(Map.of("fun", "test.ping", "arg", List.of(), "tgt", "web-1", "tgt_type", "glob",
                "jid", "20260101000000000004", "serial", 1L)));
        // Tampered: flip a ciphertext byte.
        byte[] good = publishFrame(Map.of("fun", "cmd.run", "arg", List.of("id"), "tgt", "web-1", "tgt_type", "glob",
                "jid", "20260101000000000005", "serial", 99L));
        byte[] bad = good.clone();
        bad[40] ^= 1;
        m.onPublish(bad);
        m.onPublish(new byte[] {(byte) 0xc1, 0, 1});
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> jobs.get("web-1").size() == 1);
    }

    /** A publish frame as the master would make it, with the current session key read through a sign-in. */
    byte[] publishFrame(Map<String, Object> load) {
        String aes = sessionKeyViaAuth();
        byte[] ct = new Crypticle(aes).dumps(load, null);
        return SaltPack.pack(Map.of("enc", "aes", "load", ct,
                "sig", io.drover.transport.crypto.Rsa.signSha1(MASTER_KEY, ct)));
    }

    String sessionKeyViaAuth() {
        KeyPair pair = RsaKeys.generate();
        keys.decisions.put("probe", KeyDecision.ACCEPTED);
        Map<String, Object> load = new java.util.LinkedHashMap<>(Map.of("cmd", "_auth", "id", "probe", "nonce", "n",
                "pub", RsaKeys.publicPem((java.security.interfaces.RSAPublicKey) pair.getPublic())));
        Map<?, ?> reply = (Map<?, ?>) SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("clear", load))));
        Map<?, ?> inner = (Map<?, ?>) SaltPack.unpack(SaltPack.bytes(reply.get("load")));
        return new String(io.drover.transport.crypto.Rsa.decryptOaep((RSAPrivateCrtKey) pair.getPrivate(),
                SaltPack.bytes(inner.get("aes"))), StandardCharsets.UTF_8);
    }

    /** A salt-minion's file client sends fileserver requests without its id; anything else still needs one. */
    @Test
    void fileserverRequestsMayOmitTheIdOtherRequestsMayNot() {
        Crypticle session = new Crypticle(sessionKeyViaAuth());
        byte[] list = session.dumps(Map.of("cmd", "_file_list", "saltenv", "base", "prefix", "", "nonce", "n1"), null);
        Object reply = SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", list))));
        assertThat(session.loads(SaltPack.bytes(reply), "n1")).isEqualTo(List.of("files of null"));
        byte[] find = session.dumps(Map.of("cmd", "_file_find", "path", "a.txt", "saltenv", "base", "nonce", "n2"), null);
        assertThat(session.loads(SaltPack.bytes(SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", find))))), "n2"))
                .isNull();
        byte[] anonymousReturn = session.dumps(Map.of("cmd", "_return", "jid", "1", "return", true, "nonce", "n3"), null);
        assertThat(SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", anonymousReturn))))).isEqualTo("bad load");
        assertThat(keys.returns).isEmpty();
    }

    @Test
    void theRequestPortRefusesClearCommandsGarbageAndStrangers() {
        Object publish = SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("clear",
                Map.of("cmd", "publish", "fun", "cmd.run", "tgt", "*", "arg", List.of("rm -rf /"))))));
        assertThat(publish).isEqualTo("clear commands are not accepted");
        assertThat(SaltPack.unpack(master.handle(new byte[] {1, 2, 3}))).isEqualTo("bad load");
        assertThat(SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", new byte[64]))))).isEqualTo("bad load");
        // A minion whose key is only pending knows no session key, and an id that is not accepted is refused
        // even with the right key.
        String aes = sessionKeyViaAuth();
        byte[] forged = new Crypticle(aes).dumps(Map.of("cmd", "_return", "id", "stranger", "jid", "1", "return", true,
                "nonce", "x"), null);
        assertThat(SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", forged))))).isEqualTo("bad load");
        assertThat(keys.returns).isEmpty();
        assertThat(SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("clear",
                Map.of("cmd", "_auth", "id", "../etc/passwd", "nonce", "n", "pub", "x"))))))
                .isInstanceOfSatisfying(Map.class, r -> assertThat(SaltPack.unpack(SaltPack.bytes(r.get("load"))))
                        .isEqualTo(Map.of("ret", false, "nonce", "n")));
    }

    @Test
    void aRotatedSessionKeyMakesMinionsSignInAgain() throws Exception {
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        SaltMinion m = minion("web-1");
        awaitSubscribed();
        master.rotateSessionKey();
        master.publish(ping("20260101000000000006", "web-1", "glob"), List.of("web-1"));
        // The first publish after rotation cannot be decrypted; the minion re-authenticates and gets the next one.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(300)).until(() -> {
            master.publish(ping("2026010100000000" + System.nanoTime() % 10000, "web-1", "glob"), List.of("web-1"));
            return !jobs.get("web-1").isEmpty();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !keys.returns.isEmpty());
    }

    @Test
    void garbageOnTheWireDoesNotStopTheMaster() {
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        try (ZContext ctx = new ZContext(); ZMQ.Socket raw = ctx.createSocket(SocketType.DEALER)) {
            raw.connect("tcp://127.0.0.1:" + master.requestPort());
            raw.send(new byte[] {9, 9, 9}, 0);
            raw.send(new byte[0], ZMQ.SNDMORE);
            raw.send(new byte[100_000], 0);
        }
        SaltMinion m = minion("web-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> m.state() == SaltMinion.State.CONNECTED);
    }
}
