package io.drover.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.core.cluster.ClusterSeal;
import io.drover.model.Json;
import io.drover.model.events.Event;
import io.drover.server.events.EventBus;
import io.drover.server.testing.TestNats;
import io.drover.transport.envelope.PublishLoad;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers' cluster links over a real nats-server of the test's own, which admits only the servers' account:
 * stored events cross in batches; job returns cross compactly and only to a server that wants them; hostile messages
 * are dropped, and so are messages forged or replayed by someone holding the servers' NATS account. Fails, not skips,
 * under CI when nats-server is missing.
 */
class NatsClusterTest {
    static final OffsetDateTime AT = OffsetDateTime.of(2026, 11, 27, 1, 2, 3, 456_000_000, ZoneOffset.UTC);
    static final AtomicLong IDS = new AtomicLong(System.nanoTime());
    static final byte[] KEY = new java.security.SecureRandom().generateSeed(32);

    @TempDir
    Path dir;
    TestNats natsServer;
    final EventBus busA = new EventBus();
    final EventBus busB = new EventBus();
    final List<Event> heardOnB = new CopyOnWriteArrayList<>();
    final List<PublishLoad> publishedOnB = new CopyOnWriteArrayList<>();
    NatsCluster a;
    NatsCluster b;

    static PublishLoad ping(String jid, String agent) {
        return PublishLoad.forList("test.ping", List.of(), List.of(agent), jid, "test");
    }

    @BeforeEach
    void join() {
        natsServer = TestNats.withPassword(dir);
        a = NatsCluster.join(natsServer.url(), natsServer.credentials(), KEY, Clock.systemUTC(), (load, minions) -> { }, busA);
        b = NatsCluster.join(natsServer.url(), natsServer.credentials(), KEY, Clock.systemUTC(),
                (load, minions) -> publishedOnB.add(load), busB);
        busB.subscribe(e -> true, heardOnB::add);
    }

    @AfterEach
    void leave() {
        if (a != null) {
            a.close();
            b.close();
        }
        if (natsServer != null) {
            natsServer.close();
        }
    }

    @Test
    void returnsReachOnlyAServerThatWantsThemAndOtherEventsReachEveryServer() throws Exception {
        List<Event> returns = returns(1_000);
        busA.publishAll(returns);
        Event marker = event("drover/test/marker-1", Map.of("n", 1));
        busA.publish(marker);
        await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.contains(marker));
        assertThat(heardOnB).as("nobody on B waits for returns").containsExactly(marker);
        assertThat(b.receivesReturns()).isFalse();

        AutoCloseable wanted = busB.wantPeerReturns();
        AutoCloseable alsoWanted = busB.wantPeerReturns();
        assertThat(b.receivesReturns()).isTrue();
        heardOnB.clear();
        busA.publishAll(returns);
        await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.size() == returns.size());
        assertThat(heardOnB).as("the same events, in order, with their ids, tags, times and data").isEqualTo(returns);

        wanted.close();
        wanted.close();
        assertThat(b.receivesReturns()).as("one holder is left").isTrue();
        alsoWanted.close();
        assertThat(b.receivesReturns()).isFalse();
        heardOnB.clear();
        busA.publishAll(returns);
        Event marker2 = event("drover/test/marker-2", Map.of("n", 2));
        busA.publish(marker2);
        await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.contains(marker2));
        assertThat(heardOnB).containsExactly(marker2);
    }

    @Test
    void eventsShapedAlmostLikeReturnsAndLargeBatchesCrossWhole() {
        // an agent may fire any tag: its event's data is not a stored return's and goes to every server
        Event fired = event("salt/job/1/ret/web-1", Map.of("id", "web-1", "data", Map.of("jid", "1")));
        Event mismatched = returnEvent("2", "web-2", true);
        Map<String, Object> otherTag = new LinkedHashMap<>(mismatched.data());
        Event renamed = new Event(mismatched.id(), "salt/job/2/ret/web-3", AT, otherTag);
        String large = "x".repeat(400_000);
        List<Event> batch = new ArrayList<>(List.of(fired, renamed));
        for (int i = 0; i < 3; i++) {
            batch.add(event("drover/test/large", Map.of("blob", large, "i", i)));
        }
        busA.publishAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.size() == batch.size());
        assertThat(heardOnB).as("1.2 MB of events crosses in parts under NATS's 1 MB limit").isEqualTo(batch);
    }

    @Test
    void malformedReturnMessagesAreDroppedAndTheLinkKeepsWorking() throws Exception {
        AutoCloseable wanted = busB.wantPeerReturns();
        try (Connection nats = natsServer.connectWithTheServersAccount()) {
            String nested = "[".repeat(5_000) + "]".repeat(5_000);
            for (String bad : List.of("not json", nested, "{\"origin\":\"x\",\"time\":\"yesterday\",\"returns\":[]}",
                    "{\"origin\":\"x\",\"returns\":[null]}", "{\"origin\":\"x\",\"returns\":[[1,null,null,\"f\",0,true,1]]}",
                    "{\"origin\":\"x\",\"returns\":[[\"one\",\"1\",\"m\",\"f\",0,true,1]]}",
                    "{\"origin\":\"x\",\"time\":\"2026-11-27T01:02:03Z\",\"returns\":{\"a\":1}}",
                    "{\"origin\":\"x\",\"time\":\"2026-11-27T01:02:03Z\",\"returns\":[[1,null,\"m\",\"f\",0,true,1]]}")) {
                nats.publish(NatsCluster.RETURNS, bad.getBytes(StandardCharsets.UTF_8));
            }
            nats.publish(NatsCluster.RETURNS, new byte[] {0, (byte) 0xff, 0x5b});
            nats.publish(NatsCluster.EVENTS, "{\"origin\":\"x\",\"events\":[null,{\"id\":1}]}".getBytes(StandardCharsets.UTF_8));
            nats.flush(Duration.ofSeconds(5));
        }
        List<Event> returns = returns(3);
        busA.publishAll(returns);
        await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.size() >= returns.size());
        assertThat(heardOnB).isEqualTo(returns);
        wanted.close();
    }

    @Test
    void withTheServersNatsAccountButNotTheClusterKeyForgedJobsEventsAndReturnsAreDropped() throws Exception {
        AutoCloseable wanted = busB.wantPeerReturns();
        Event forgedReturn = returnEvent("20261127010203000001", "web-1", true);
        try (Connection nats = natsServer.connectWithTheServersAccount()) {
            nats.publish(NatsCluster.PUBLISH, Json.json().writeValueAsBytes(Map.of("origin", "x", "load",
                    Map.of("fun", "cmd.run", "arg", List.of("touch /tmp/pwned"), "tgt", "*", "tgt_type", "glob", "jid", "1"))));
            nats.publish(NatsCluster.EVENTS, Json.json().writeValueAsBytes(Map.of("origin", "x", "events",
                    List.of(event("drover/agent/web-1/online", Map.of("id", "web-1"))))));
            nats.publish(NatsCluster.RETURNS, Json.json().writeValueAsBytes(Map.of("origin", "x", "time", AT.toString(),
                    "returns", List.of(List.of(forgedReturn.id(), "20261127010203000001", "web-1", "test.ping", 0, true, true)))));
            nats.flush(Duration.ofSeconds(5));
        }
        byte[] otherKey = KEY.clone();
        otherKey[0] ^= 1;
        EventBus busC = new EventBus();
        try (NatsCluster c = NatsCluster.join(natsServer.url(), natsServer.credentials(), otherKey, Clock.systemUTC(),
                (load, minions) -> { }, busC)) {
            busC.publish(event("drover/agent/web-1/online", Map.of("id", "web-1")));
            c.publish(new PublishLoad("cmd.run", List.of("touch /tmp/pwned"), "*", "glob", "4", "", "x"), null);
            // C's event leaves through its bus and both wait in its connection's buffer: closing it is no flush
            await().atMost(Duration.ofSeconds(10)).until(() -> b.refused(ClusterSeal.Refusal.FORGED) >= 2);
        }
        Event marker = event("drover/test/marker-forged", Map.of("n", 1));
        busA.publish(marker);
        a.publish(ping("2", "web-2"), List.of("web-2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.contains(marker) && !publishedOnB.isEmpty()
                && b.refused(ClusterSeal.Refusal.UNSEALED) >= 3);
        assertThat(heardOnB).as("only the genuine event crossed").containsExactly(marker);
        assertThat(publishedOnB).as("only the genuine job reached B's agents").containsExactly(ping("2", "web-2"));
        assertThat(b.refused(ClusterSeal.Refusal.UNSEALED)).as("the plain client's three messages").isEqualTo(3);
        assertThat(b.refused(ClusterSeal.Refusal.FORGED)).as("the two of a server with another key").isEqualTo(2);
        wanted.close();
    }

    @Test
    void aGenuineMessageReplayedByAnotherClientIsDropped() throws Exception {
        List<byte[]> captured = new CopyOnWriteArrayList<>();
        try (Connection nats = natsServer.connectWithTheServersAccount()) {
            nats.createDispatcher(m -> captured.add(m.getData())).subscribe(NatsCluster.EVENTS).subscribe(NatsCluster.PUBLISH);
            nats.flush(Duration.ofSeconds(5));
            Event genuine = event("drover/test/genuine", Map.of("n", 1));
            busA.publish(genuine);
            a.publish(ping("3", "web-3"), List.of("web-3"));
            await().atMost(Duration.ofSeconds(10)).until(() -> captured.size() == 2 && heardOnB.contains(genuine)
                    && publishedOnB.size() == 1);
            for (byte[] bytes : captured) {
                nats.publish(NatsCluster.EVENTS, bytes);
                nats.publish(NatsCluster.PUBLISH, bytes);
            }
            nats.flush(Duration.ofSeconds(5));
            Event marker = event("drover/test/marker-replayed", Map.of("n", 2));
            busA.publish(marker);
            await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.contains(marker)
                    && b.refused(ClusterSeal.Refusal.REPLAYED) >= 2 && b.refused(ClusterSeal.Refusal.FORGED) >= 2);
            assertThat(heardOnB).as("the replayed event was not delivered again").containsExactly(genuine, marker);
            assertThat(publishedOnB).as("the replayed job was not sent again").hasSize(1);
            assertThat(b.refused(ClusterSeal.Refusal.REPLAYED)).as("each sent again on its subject").isEqualTo(2);
            assertThat(b.refused(ClusterSeal.Refusal.FORGED)).as("each sent again on the other subject").isEqualTo(2);
        }
    }

    @Test
    void anEventSentTheMomentAServerHasJoinedReachesIt() {
        // join returns once NATS has the new server's subscriptions; before, a peer's first event could go to nobody
        for (int i = 0; i < 30; i++) {
            EventBus busC = new EventBus();
            List<Event> heardOnC = new CopyOnWriteArrayList<>();
            busC.subscribe(e -> true, heardOnC::add);
            try (NatsCluster c = NatsCluster.join(natsServer.url(), natsServer.credentials(), KEY, Clock.systemUTC(),
                    (load, minions) -> { }, busC)) {
                Event first = event("drover/test/first-" + i, Map.of("n", i));
                busA.publish(first);
                Event marker = event("drover/test/after-first-" + i, Map.of("n", i));
                await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.contains(first));
                busA.publish(marker);
                await().atMost(Duration.ofSeconds(10)).until(() -> heardOnB.contains(marker));
                assertThat(heardOnC).as("join %d", i).contains(first);
            }
        }
    }

    @Test
    void aNatsThatDoesNotAnswerIsNamedWithoutThePasswordOfItsUrl() {
        NatsCredentials none = new NatsCredentials(null, null, null, null, null, null, null, true, false);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> NatsCluster.join("nats://drover:s3cret@127.0.0.1:1,nats://127.0.0.1:2",
                        none, KEY, Clock.systemUTC(), (load, minions) -> { }, new EventBus()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("nats://…@127.0.0.1:1,nats://127.0.0.1:2").hasNoCause()
                .hasMessageNotContaining("s3cret");
    }

    /**
     * Someone between a server and NATS who lets the connection open and then holds back NATS's answers: the join fails
     * with a clear message, and the connection is closed rather than left as a server that hears nothing from its peers.
     */
    @Test
    void aNatsThatConnectsButDoesNotConfirmTheSubscriptionsFailsTheJoinAndIsLeft() throws Exception {
        NatsCredentials none = new NatsCredentials(null, null, null, null, null, null, null, false, true);
        try (java.net.ServerSocket stub = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CompletableFuture<String> afterHandshake = new java.util.concurrent.CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (java.net.Socket client = stub.accept();
                     var in = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
                    var out = client.getOutputStream();
                    out.write(("INFO {\"server_id\":\"stub\",\"version\":\"2.10.0\",\"proto\":1,\"max_payload\":1048576,"
                            + "\"headers\":true}\r\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    String line;
                    while ((line = in.readLine()) != null && !line.startsWith("PING")) {
                        // CONNECT
                    }
                    out.write("PONG\r\n".getBytes(StandardCharsets.UTF_8)); // the connect's own round trip, then silence
                    out.flush();
                    StringBuilder seen = new StringBuilder();
                    while ((line = in.readLine()) != null) {
                        seen.append(line.split(" ")[0]).append(' ');
                    }
                    afterHandshake.complete(seen.toString().strip()); // the client closed the connection
                } catch (java.io.IOException e) {
                    afterHandshake.completeExceptionally(e);
                }
            });
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> NatsCluster.join("nats://127.0.0.1:" + stub.getLocalPort(),
                            none, KEY, Clock.systemUTC(), (load, minions) -> { }, new EventBus()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not confirm this server's subscriptions within 5 s");
            assertThat(afterHandshake.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the subscriptions and the unanswered PING were sent, then the connection closed")
                    .contains("SUB", "PING");
        }
    }

    static List<Event> returns(int count) {
        List<Event> returns = new ArrayList<>();
        String jid = "2026112701020300" + (IDS.incrementAndGet() % 10_000);
        for (int i = 0; i < count; i++) {
            returns.add(returnEvent(jid, "web-" + i, i % 7 == 0 ? Map.of("out", List.of(1, "two", i)) : true));
        }
        return returns;
    }

    static Event returnEvent(String jid, String minion, Object ret) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("jid", jid);
        data.put("id", minion);
        data.put("fun", "test.ping");
        data.put("return", ret);
        data.put("retcode", ret instanceof Boolean ? 0 : 2);
        data.put("success", ret instanceof Boolean);
        return new Event(IDS.incrementAndGet(), "salt/job/" + jid + "/ret/" + minion, AT, data);
    }

    static Event event(String tag, Map<String, Object> data) {
        return new Event(IDS.incrementAndGet(), tag, AT, data);
    }
}
