package io.drover.transport.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.InvalidMessageException;
import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.MalformedFrameException;
import io.drover.transport.wire.SaltPack;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Agent identity on the wire, tried as an accepted agent that turned hostile would: it holds its own RSA key and
 * whatever key it got at sign-in, and talks the protocol directly (the master and the victim agents are real, on
 * loopback). Forged returns, grains and events in another agent's name are refused and counted; a job for another
 * agent cannot be read even with an empty-prefix subscription; another agent's request replayed under one's own
 * name fails.
 */
class AgentIdentityTest {
    final MasterMinionTest.Keys keys = new MasterMinionTest.Keys();
    SaltMaster master;
    final List<SaltMinion> minions = new CopyOnWriteArrayList<>();
    final Map<String, List<Map<?, ?>>> jobs = new ConcurrentHashMap<>();

    @BeforeEach
    void start() {
        master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);
    }

    @AfterEach
    void stop() {
        minions.forEach(SaltMinion::close);
        master.close();
    }

    /** A real Drover agent's transport, answering every job it gets. */
    SaltMinion agent(String id, KeyPair pair) {
        keys.decisions.put(id, KeyDecision.ACCEPTED);
        jobs.put(id, new CopyOnWriteArrayList<>());
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(100));
        SaltMinion m = new SaltMinion(config, (RSAPrivateCrtKey) pair.getPrivate(), null, Targets.byId(id), (minion, load) -> {
            jobs.get(id).add(load);
            minion.sendReturn(Map.of("jid", load.get("jid"), "fun", load.get("fun"), "return", true, "retcode", 0));
        }, pem -> { });
        minions.add(m);
        await().atMost(Duration.ofSeconds(10)).until(() -> m.state() == SaltMinion.State.CONNECTED);
        return m;
    }

    /** What a sign-in gives: the session key the master sealed to this key pair. */
    record SignIn(String key, Map<?, ?> reply) {
    }

    /** Signs in over the protocol as a Drover agent does (asking for a key of its own). */
    SignIn signIn(String id, KeyPair pair, boolean asAgent) {
        return signIn(id, pair, asAgent, false);
    }

    SignIn signIn(String id, KeyPair pair, boolean asAgent, boolean signOnce) {
        Map<?, ?> reply = signInReply(id, pair, asAgent, signOnce);
        Map<?, ?> inner = (Map<?, ?>) SaltPack.unpack(SaltPack.bytes(reply.get("load")));
        String key = new String(Rsa.decryptOaep((RSAPrivateCrtKey) pair.getPrivate(), SaltPack.bytes(inner.get("aes"))),
                StandardCharsets.UTF_8);
        assertThat(Rsa.verifySha1(RsaKeys.publicOf(MasterMinionTest.MASTER_KEY), SaltPack.bytes(reply.get("load")),
                SaltPack.bytes(reply.get("sig")))).as("the reply's signature over its whole load").isTrue();
        return new SignIn(key, inner);
    }

    /** The master's clear reply to a sign-in; only the public half of {@code pair} is used. */
    Map<?, ?> signInReply(String id, KeyPair pair, boolean asAgent, boolean signOnce) {
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("cmd", "_auth");
        load.put("id", id);
        load.put("nonce", "n" + System.nanoTime());
        load.put("pub", RsaKeys.publicPem((RSAPublicKey) pair.getPublic()));
        if (asAgent) {
            load.put("drover_agent_key", true);
        }
        if (signOnce) {
            load.put(Messages.SIGN_ONCE_FLAG, true);
        }
        return (Map<?, ?>) SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("clear", load))));
    }

    @Test
    void signInsAtOnceQueueForTheMasterKeyAndAFailedUnsealingLeavesItToTheNext() throws Exception {
        KeyPair pair = RsaKeys.generate();
        // a sealed enrollment token that does not open: the master key's work fails inside the queue
        Map<String, Object> bad = new LinkedHashMap<>(Map.of("cmd", "_auth", "id", "garbled", "nonce", "n",
                "pub", RsaKeys.publicPem((RSAPublicKey) pair.getPublic()), Messages.ENROLL_SEALED, new byte[256]));
        for (int i = 0; i < 3; i++) {
            master.handle(SaltPack.pack(Messages.envelope("clear", bad)));
        }
        List<java.util.concurrent.Future<SignIn>> storm = new java.util.ArrayList<>();
        try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 40; i++) {
                String id = "storm-" + i;
                keys.decisions.put(id, KeyDecision.ACCEPTED);
                storm.add(threads.submit(() -> signIn(id, pair, true, true)));
            }
        }
        for (var signIn : storm) {
            assertThat(signIn.get(10, java.util.concurrent.TimeUnit.SECONDS).key()).as("a session key sealed to the agent").isNotBlank();
        }
        assertThat(master.signaturesWaiting()).isZero();
    }

    @Test
    void theSessionKeyProofIsLeftOutOnlyForAnAgentThatAsksAndTheSignedLoadSaysSo() {
        KeyPair pair = RsaKeys.generate();
        keys.decisions.put("once", KeyDecision.ACCEPTED);
        SignIn once = signIn("once", pair, true, true);
        assertThat(once.reply().get("sig")).isNull();
        assertThat(once.reply().get(Messages.SIGN_ONCE_FLAG)).isEqualTo(true);

        SignIn older = signIn("once", pair, true, false); // an agent of an earlier version
        assertThat(older.reply().get(Messages.SIGN_ONCE_FLAG)).isNull();
        assertThat(new String(Rsa.recoverX931(RsaKeys.publicOf(MasterMinionTest.MASTER_KEY),
                SaltPack.bytes(older.reply().get("sig"))), StandardCharsets.US_ASCII)).isEqualTo(io.drover.core.Hashing.sha256(older.key()));

        keys.decisions.put("salty", KeyDecision.ACCEPTED);
        SignIn salt = signIn("salty", pair, false, true); // the flag alone, on the shared key: Salt's reply, proof included
        assertThat(salt.reply().get(Messages.SIGN_ONCE_FLAG)).isNull();
        assertThat(new String(Rsa.recoverX931(RsaKeys.publicOf(MasterMinionTest.MASTER_KEY),
                SaltPack.bytes(salt.reply().get("sig"))), StandardCharsets.US_ASCII)).isEqualTo(io.drover.core.Hashing.sha256(salt.key()));
    }

    /**
     * Sends {@code load} under {@code key} in both request forms a hostile agent could try: Salt's envelope, and
     * Drover's agent envelope naming {@code envelopeId}. Returns the master's two answers.
     */
    List<Object> sendBothWays(String key, String envelopeId, Map<String, Object> load) {
        Crypticle crypticle = new Crypticle(key);
        Map<String, Object> withNonce = new LinkedHashMap<>(load);
        withNonce.put("nonce", "0123456789abcdef0123456789abcdef");
        byte[] ct = crypticle.dumps(withNonce, null);
        Object salt = SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", ct))));
        Map<String, Object> agentEnvelope = new LinkedHashMap<>(Messages.envelope("drover", ct));
        agentEnvelope.put("id", envelopeId);
        Object agent = SaltPack.unpack(master.handle(SaltPack.pack(agentEnvelope)));
        return List.of(salt, agent);
    }

    static Map<String, Object> returnOf(String id, String jid) {
        return new LinkedHashMap<>(Map.of("cmd", "_return", "id", id, "jid", jid, "fun", "test.ping", "return", "forged",
                "retcode", 0));
    }

    @Test
    void anAcceptedAgentCannotReturnFireEventsOrReportGrainsInAnotherAgentsName() {
        agent("victim", RsaKeys.generate());
        KeyPair mallory = RsaKeys.generate();
        agent("mallory", mallory);
        keys.returns.clear();
        keys.events.clear();
        String key = signIn("mallory", mallory, true).key();

        List<Object> answers = new java.util.ArrayList<>();
        answers.addAll(sendBothWays(key, "mallory", returnOf("victim", "20260101000000000001")));
        Map<String, Object> heartbeat = new LinkedHashMap<>(Map.of("cmd", "_minion_event", "id", "victim",
                "tag", "drover/agent/victim/heartbeat", "data", Map.of("grains", Map.of("drover_innerip", "10.0.0.66"))));
        heartbeat.put("tok", Rsa.signX931((RSAPrivateCrtKey) mallory.getPrivate(), "salt".getBytes(StandardCharsets.US_ASCII)));
        answers.addAll(sendBothWays(key, "mallory", heartbeat));
        Map<String, Object> online = new LinkedHashMap<>(heartbeat);
        online.put("tag", "drover/agent/victim/online");
        answers.addAll(sendBothWays(key, "mallory", online));
        answers.addAll(sendBothWays(key, "mallory", new LinkedHashMap<>(Map.of("cmd", "_pillar", "id", "victim",
                "grains", Map.of("os", "Forged")))));

        assertThat(answers).allMatch("bad load"::equals);
        assertThat(keys.returns).isEmpty();
        assertThat(keys.events).isEmpty();
        assertThat(keys.pillars).isEmpty();
        assertThat(master.refusedRequests(RequestRefusal.ID_MISMATCH)).isEqualTo(4);
        assertThat(keys.modes).containsEntry("victim", AgentMode.DROVER).containsEntry("mallory", AgentMode.DROVER);
    }

    @Test
    void aSaltMinionHoldingTheSharedKeyCannotSpeakForADroverAgent() {
        agent("victim", RsaKeys.generate());
        keys.returns.clear();
        keys.events.clear();
        KeyPair minion = RsaKeys.generate();
        keys.decisions.put("old-minion", KeyDecision.ACCEPTED);
        SignIn shared = signIn("old-minion", minion, false);
        assertThat(shared.reply().get("drover_agent_key")).isNull();
        Map<String, Object> event = new LinkedHashMap<>(Map.of("cmd", "_minion_event", "id", "victim",
                "tag", "drover/agent/victim/online", "data", Map.of()));
        assertThat(sendBothWays(shared.key(), "old-minion", returnOf("victim", "20260101000000000005")).getFirst())
                .isEqualTo("bad load");
        assertThat(sendBothWays(shared.key(), "old-minion", event).getFirst()).isEqualTo("bad load");
        assertThat(keys.returns).isEmpty();
        assertThat(keys.events).isEmpty();
        assertThat(master.refusedRequests(RequestRefusal.SHARED_KEY)).isEqualTo(2);
        // its own return under the shared key is a salt-minion's, as before
        assertThat(sendBothWays(shared.key(), "old-minion", returnOf("old-minion", "20260101000000000006")).getFirst())
                .isNotEqualTo("bad load");
        assertThat(keys.modes).containsEntry("old-minion", AgentMode.SALT);
    }

    /**
     * A sign-in proves nothing about the private key (a minion's public key is sent in clear at every sign-in): one
     * without the agent flag in the name of a Drover agent must not turn that agent into a salt-minion, which would put
     * its jobs under the shared key and let any holder of that key answer for it. Nor does a Drover agent get the
     * shared key by leaving the flag out.
     */
    @Test
    void aSignInWithoutTheAgentFlagNeitherDowngradesADroverAgentNorGivesItTheSharedKey() {
        KeyPair victim = RsaKeys.generate();
        agent("victim", victim);
        KeyPair mallory = RsaKeys.generate();
        agent("mallory", mallory);
        keys.returns.clear();
        keys.pillars.clear();

        for (var claim : List.of(Map.entry("victim", victim), Map.entry("mallory", mallory))) {
            Map<?, ?> reply = signInReply(claim.getKey(), claim.getValue(), false, false);
            Map<?, ?> inner = (Map<?, ?>) SaltPack.unpack(SaltPack.bytes(reply.get("load")));
            assertThat(inner.get("ret")).as(claim.getKey()).isEqualTo(false);
            assertThat(inner.get("aes")).as("no key for " + claim.getKey()).isNull();
        }
        assertThat(keys.modes).containsEntry("victim", AgentMode.DROVER).containsEntry("mallory", AgentMode.DROVER);
        assertThat(master.refusedRequests(RequestRefusal.AGENT_WITHOUT_FLAG)).isEqualTo(2);

        // the session key a salt-minion holds still cannot answer for the victim, whose jobs stay under its own key
        keys.decisions.put("old-minion", KeyDecision.ACCEPTED);
        SignIn shared = signIn("old-minion", RsaKeys.generate(), false);
        assertThat(sendBothWays(shared.key(), "old-minion", returnOf("victim", "20260101000000000007")).getFirst())
                .isEqualTo("bad load");
        assertThat(keys.returns).isEmpty();
        String jid = "20260101000000000008";
        master.publish(job(jid, "victim"), List.of("victim"));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.get("victim").stream().anyMatch(j -> jid.equals(j.get("jid"))));

        // its key deleted (the handler forgets its mode; the session key rotates, here or on another server), the host
        // may come back as a salt-minion under the same id
        keys.modes.remove("victim");
        master.rotateSessionKey();
        Map<?, ?> inner = (Map<?, ?>) SaltPack.unpack(SaltPack.bytes(signInReply("victim", victim, false, false).get("load")));
        assertThat(inner.get("aes")).as("a salt-minion's sign-in after the key was deleted").isNotNull();
        assertThat(keys.modes).containsEntry("victim", AgentMode.SALT);
    }

    /**
     * The sealed token rides in clear in every sign-in the agent makes: copied into a sign-in with another key or id it
     * opens to nothing, nor does a token sealed alone (unbound); sealed for this id and key it is the token.
     */
    @Test
    void aSealedEnrollmentTokenAdmitsOnlyTheIdAndKeyItWasSealedWith() {
        KeyPair agent = RsaKeys.generate();
        KeyPair attacker = RsaKeys.generate();
        String agentPem = RsaKeys.publicPem((RSAPublicKey) agent.getPublic());
        String attackerPem = RsaKeys.publicPem((RSAPublicKey) attacker.getPublic());
        String token = "drv_enroll_" + "A".repeat(43);
        byte[] sealed = Rsa.encryptOaep(RsaKeys.publicOf(MasterMinionTest.MASTER_KEY),
                io.drover.transport.protocol.EnrollmentSeal.plain("web-1", agentPem, token));
        byte[] unbound = Rsa.encryptOaep(RsaKeys.publicOf(MasterMinionTest.MASTER_KEY), token.getBytes(StandardCharsets.UTF_8));

        signInSealed("web-2", attackerPem, sealed);
        signInSealed("web-1", attackerPem, sealed);
        signInSealed("web-3", agentPem, sealed);
        signInSealed("web-4", attackerPem, unbound);
        assertThat(keys.enrollTokens).isEmpty();
        signInSealed("web-1", agentPem, sealed);
        assertThat(keys.enrollTokens).containsExactly(Map.entry("web-1", token));
    }

    private void signInSealed(String id, String pubPem, byte[] sealed) {
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("cmd", "_auth");
        load.put("id", id);
        load.put("nonce", "n" + System.nanoTime());
        load.put("pub", pubPem);
        load.put(Messages.AGENT_KEY_FLAG, true);
        load.put(Messages.ENROLL_SEALED, sealed);
        assertThat(master.handle(SaltPack.pack(Messages.envelope("clear", load)))).isNotEmpty();
    }

    @Test
    void anotherAgentsRequestReplayedUnderOnesOwnNameFails() {
        KeyPair victim = RsaKeys.generate();
        agent("victim", victim);
        KeyPair mallory = RsaKeys.generate();
        agent("mallory", mallory);
        keys.returns.clear();
        // A request the victim really made (here made with its key, as mallory would capture it on the wire),
        // sent again by mallory naming herself in the envelope, and naming the victim with her own key.
        String victimKey = signIn("victim", victim, true).key();
        List<Object> replayed = sendBothWays(victimKey, "mallory", returnOf("mallory", "20260101000000000002"));
        String malloryKey = signIn("mallory", mallory, true).key();
        List<Object> underVictimsName = sendBothWays(malloryKey, "victim", returnOf("victim", "20260101000000000003"));
        assertThat(replayed.get(1)).isEqualTo("bad load");
        assertThat(underVictimsName.get(1)).isEqualTo("bad load");
        assertThat(master.refusedRequests(RequestRefusal.WRONG_KEY)).isEqualTo(2);
        assertThat(keys.returns).noneMatch(r -> r.get("jid").equals("20260101000000000003"));
        // her own return under her own key is fine
        assertThat(sendBothWays(malloryKey, "mallory", returnOf("mallory", "20260101000000000004")).get(1))
                .isNotEqualTo("bad load");
        assertThat(keys.returns).anyMatch(r -> r.get("jid").equals("20260101000000000004"));
    }

    @Test
    void anEmptyPrefixSubscriberCannotReadAJobForAnotherAgent() {
        SaltMinion victim = agent("victim", RsaKeys.generate());
        KeyPair mallory = RsaKeys.generate();
        agent("mallory", mallory);
        String key = signIn("mallory", mallory, true).key();
        Crypticle malloryKey = new Crypticle(key);
        List<byte[]> seen = new CopyOnWriteArrayList<>();
        try (ZContext ctx = new ZContext(); ZMQ.Socket sub = ctx.createSocket(SocketType.SUB)) {
            sub.connect("tcp://127.0.0.1:" + master.publishPort());
            sub.subscribe(new byte[0]);
            sub.subscribe(Messages.topic("victim").getBytes(StandardCharsets.US_ASCII)); // topics are sha1(id): no secret
            sub.setReceiveTimeOut(100);
            // Two waits, so that a failure says which side saw nothing: the victim, or the eavesdropper.
            Callable<Boolean> publish = () -> {
                master.publish(job("20260101" + System.nanoTime() % 1_000_000_000_000L, "victim"), List.of("victim"));
                for (byte[] frame = sub.recv(); frame != null; frame = sub.recv()) {
                    seen.add(frame);
                }
                return true;
            };
            // Polled on this thread: a JeroMQ socket belongs to one thread, and Awaitility's own evaluates on a new
            // thread per wait.
            await("the victim agent receives its job").pollInSameThread().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).until(() -> publish.call() && !jobs.get("victim").isEmpty());
            await("the empty-prefix subscriber sees the victim's publishes").pollInSameThread().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).until(() -> publish.call() && seen.size() >= 2);
        }
        assertThat(victim.state()).isEqualTo(SaltMinion.State.CONNECTED);
        for (byte[] frame : seen) {
            if (frame.length == 40 && new String(frame, StandardCharsets.US_ASCII).matches("[0-9a-f]{40}")) {
                continue; // the topic frame
            }
            Map<?, ?> envelope = (Map<?, ?>) SaltPack.unpack(frame);
            byte[] ct = SaltPack.bytes(envelope.get("load"));
            assertThat(decrypts(malloryKey, ct)).as("mallory read the victim's job").isFalse();
        }
    }

    static boolean decrypts(Crypticle key, byte[] ct) {
        try {
            key.loads(ct, null);
            return true;
        } catch (InvalidMessageException | MalformedFrameException e) {
            return false;
        }
    }

    static Map<String, Object> job(String jid, String target) {
        return new LinkedHashMap<>(Map.of("fun", "cmd.run", "arg", List.of("echo the password is hunter2"), "tgt", target,
                "tgt_type", "glob", "jid", jid, "ret", "", "user", "drover"));
    }
}
