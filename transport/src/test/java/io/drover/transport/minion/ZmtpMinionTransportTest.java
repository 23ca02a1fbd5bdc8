package io.drover.transport.minion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.KeyDecision;
import io.drover.transport.master.MasterHandler;
import io.drover.transport.master.SaltMaster;
import io.drover.transport.zmtp.ZmtpLoop;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The load tool's ZMTP client against the real master, many minions on one shared loop as in the load tool: sign-in, publishes, returns, fileserver, restart. */
class ZmtpMinionTransportTest {
    static final RSAPrivateCrtKey MASTER_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
    static final RSAPrivateCrtKey MINION_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();

    /** Accepts ids starting with "ok-"; records returns and answers _file_list. */
    static final class Handler implements MasterHandler {
        final Map<String, String> keys = new ConcurrentHashMap<>();
        final List<Map<?, ?>> returns = new CopyOnWriteArrayList<>();

        @Override
        public KeyDecision decideKey(String id, String pem, Map<?, ?> load) {
            if (!id.startsWith("ok-")) {
                return KeyDecision.PENDING;
            }
            keys.put(id, pem);
            return KeyDecision.ACCEPTED;
        }

        @Override
        public String acceptedKey(String id) {
            return keys.get(id);
        }

        @Override
        public Object onReturn(String id, Map<?, ?> load) {
            returns.add(load);
            return true;
        }

        @Override
        public Object onEvent(String id, Map<?, ?> load) {
            return true;
        }

        @Override
        public Object onCommand(String id, String cmd, Map<?, ?> load) {
            return cmd.equals("_file_list") ? List.of("files for " + id) : null;
        }
    }

    final Handler handler = new Handler();
    final ZmtpLoop loop = new ZmtpLoop("zmtp-test");
    final List<SaltMinion> minions = new ArrayList<>();
    final Map<String, List<Object>> jobs = new ConcurrentHashMap<>();
    SaltMaster master = new SaltMaster(MASTER_KEY, handler, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);

    @AfterEach
    void stop() {
        minions.forEach(SaltMinion::close);
        master.close();
        loop.close();
    }

    SaltMinion minion(String id) {
        MinionConfig config = MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(100));
        jobs.put(id, new CopyOnWriteArrayList<>());
        SaltMinion m = new SaltMinion(config, MINION_KEY, null, Targets.byId(id), (minion, load) -> {
            jobs.get(id).add(load.get("jid"));
            minion.sendReturn(Map.of("jid", load.get("jid"), "fun", load.get("fun"), "return", true, "retcode", 0));
        }, pem -> { }, new ZmtpMinionTransport(config, loop));
        minions.add(m);
        return m;
    }

    /**
     * Closing a subscribed minion ends its subscription at once: a fleet closed one after another (an agent's
     * shutdown, a load tool's end) used to wait for each loop's next poll, up to a second per minion.
     */
    @Test
    void closingSubscribedMinionsReturnsAtOnce() {
        for (int i = 0; i < 20; i++) {
            minion("ok-closing-" + i);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> minions.stream().allMatch(m -> m.state() == SaltMinion.State.CONNECTED));
        long started = System.nanoTime();
        minions.forEach(SaltMinion::close);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(minions).allMatch(m -> m.state() == SaltMinion.State.STOPPED);
        assertThat(tookMs).as("20 closes, each of which waited up to a second for its loop's poll before").isLessThan(4000);
    }

    static Map<String, Object> ping(String jid, String tgt) {
        return new LinkedHashMap<>(Map.of("fun", "test.ping", "arg", List.of(), "tgt", tgt, "tgt_type", "glob", "jid", jid));
    }

    /** Publishes until the minion has received one (its subscription may reach the publisher after the first). */
    void awaitJob(String id, String jidPrefix, List<String> targets) {
        int[] n = {0};
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).until(() -> {
            master.publish(ping(jidPrefix + n[0]++, id), targets);
            return jobs.get(id).stream().anyMatch(j -> j.toString().startsWith(jidPrefix));
        });
    }

    @Test
    void signsInReceivesTargetedAndBroadcastPublishesAndReturns() {
        SaltMinion a = minion("ok-a");
        SaltMinion b = minion("ok-b");
        SaltMinion pending = minion("new-c");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.state() == SaltMinion.State.CONNECTED
                && b.state() == SaltMinion.State.CONNECTED && pending.state() == SaltMinion.State.PENDING);

        awaitJob("ok-a", "to-a-", List.of("ok-a"));
        awaitJob("ok-b", "broadcast-", null);
        await().atMost(Duration.ofSeconds(5)).until(() -> handler.returns.stream().anyMatch(r -> r.get("jid").toString().startsWith("to-a-")));
        // The SUB filter works: ok-b's socket never got the frames with ok-a's topic (its target check would have
        // dropped them anyway, so count what the master sent instead of what b ran).
        assertThat(jobs.get("ok-b")).noneMatch(j -> j.toString().startsWith("to-a-"));
        assertThat(master.agentFrames()).isPositive();
        assertThat(a.call("_file_list", Map.of())).contains(List.of("files for ok-a"));
        assertThat(pending.call("_file_list", Map.of())).isEmpty();
    }

    @Test
    void signsInAgainAfterTheMasterRestarts() {
        SaltMinion a = minion("ok-a");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.state() == SaltMinion.State.CONNECTED);
        awaitJob("ok-a", "before-", List.of("ok-a"));
        int publishPort = master.publishPort();
        int requestPort = master.requestPort();
        master.close();
        master = new SaltMaster(MASTER_KEY, handler, "127.0.0.1", publishPort, requestPort, SaltMaster.PublishMode.FILTERED);
        // The new master has a new session key: the minion's old subscription closed, it signed in again.
        awaitJob("ok-a", "after-", List.of("ok-a"));
        await().atMost(Duration.ofSeconds(5)).until(() -> handler.returns.stream().anyMatch(r -> r.get("jid").toString().startsWith("after-")));
    }
}
