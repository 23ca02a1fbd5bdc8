package io.drover.transport.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.fuzz.Mutator;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.SaltPack;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of what the master reads from anyone who connects (sign-in {@code _auth} loads and encrypted
 * requests) and of what a minion reads from its publish socket: any input gets Salt's answer or is dropped, never
 * an exception, and no mutated publish ever runs a job.
 */
class MasterFuzzTest {
    static final RSAPrivateCrtKey MINION_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();

    @Test
    void theMasterAnswersAnyRequestWithAReply() {
        MasterMinionTest.Keys keys = new MasterMinionTest.Keys();
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        try (SaltMaster master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED)) {
            Map<String, Object> auth = new LinkedHashMap<>();
            auth.put("cmd", "_auth");
            auth.put("id", "web-1");
            auth.put("nonce", "0123456789abcdef0123456789abcdef");
            auth.put("pub", RsaKeys.publicPem(RsaKeys.publicOf(MINION_KEY)));
            Map<String, Object> aesLoad = new LinkedHashMap<>(Map.of("cmd", "_return", "id", "web-1", "jid", "1", "nonce", "n"));
            List<byte[]> seeds = List.of(
                    SaltPack.pack(Messages.envelope("clear", auth)),
                    SaltPack.pack(Messages.envelope("aes", master.sessionForTest().dumps(aesLoad, null))),
                    SaltPack.pack(Messages.envelope("aes", master.sessionForTest().dumps(Map.of("cmd", "_file_list", "prefix", ""), null))));
            Mutator mutator = new Mutator(Mutator.SEED + 2, seeds);
            int signIns = 0;
            for (int i = 0; i < Mutator.ITERATIONS; i++) {
                byte[] input = mutator.next();
                byte[] reply;
                try {
                    reply = master.handle(input);
                } catch (RuntimeException | Error e) {
                    throw new AssertionError("input " + i + " of seed " + (Mutator.SEED + 2) + " broke the master", e);
                }
                Object decoded = SaltPack.unpack(reply);
                if (decoded instanceof Map<?, ?> m && "clear".equals(m.get("enc"))) {
                    signIns++;
                }
            }
            assertThat(signIns).as("some mutated sign-ins still get a signed answer").isPositive();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "own key: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aMinionDropsEveryMutatedPublishAndRunsNone(boolean ownKey) {
        MasterMinionTest.Keys keys = new MasterMinionTest.Keys();
        keys.decisions.put("web-1", KeyDecision.ACCEPTED);
        List<Object> ran = new CopyOnWriteArrayList<>();
        try (SaltMaster master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.BROADCAST)) {
            MinionConfig both = MinionConfig.of("web-1", "127.0.0.1", master.publishPort(), master.requestPort())
                    .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMillis(100));
            MinionConfig config = ownKey ? both : both.withSharedKeyOnly();
            SaltMinion minion = new SaltMinion(config, MINION_KEY, null, Targets.byId("web-1"), (m, load) -> ran.add(load.get("jid")),
                    pem -> { });
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> minion.state() == SaltMinion.State.CONNECTED);
                List<byte[]> seeds = new ArrayList<>();
                for (long serial : new long[] {1, 2, 1L << 40}) {
                    Map<String, Object> load = new LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", "web-1",
                            "tgt_type", "glob", "jid", "seed-" + serial, "serial", serial));
                    if (ownKey) { // an agent's frame: under its own key, no signature
                        seeds.add(SaltPack.pack(Map.of("enc", "drover", "load", master.agentKeyForTest("web-1").dumps(load, null))));
                        continue;
                    }
                    byte[] ct = master.sessionForTest().dumps(load, null);
                    seeds.add(SaltPack.pack(Map.of("enc", "aes", "load", ct, "sig", Rsa.signSha1(MasterMinionTest.MASTER_KEY, ct))));
                }
                // The seeds themselves run once each (accepted in serial order), then never again.
                seeds.forEach(minion::onPublish);
                await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 3);
                Mutator mutator = new Mutator(Mutator.SEED + (ownKey ? 4 : 3), seeds);
                for (int i = 0; i < Mutator.ITERATIONS; i++) {
                    byte[] input = mutator.next();
                    try {
                        minion.onPublish(input);
                    } catch (RuntimeException | Error e) {
                        throw new AssertionError("input " + i + " of seed " + (Mutator.SEED + 3) + " broke the minion", e);
                    }
                }
                // accepted in serial order, but each job runs on a thread of its own, so they may finish in any order
                assertThat(ran).containsExactlyInAnyOrder("seed-1", "seed-2", "seed-" + (1L << 40));
                assertThat(minion.loopAlive()).isTrue();
            } finally {
                minion.close();
            }
        }
    }
}
