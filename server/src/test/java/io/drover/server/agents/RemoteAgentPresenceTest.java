package io.drover.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.events.Event;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.store.Database;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An agent online through another server of the cluster, whose server died and which did not move: the server that
 * watches remote agents marks it lost once no server has heard from it for three heartbeats plus the last-seen write
 * delay, with the event that tells the others; a server that does not watch leaves it to the one that does.
 */
class RemoteAgentPresenceTest {
    final ManualClock clock = new ManualClock(1_800_000_000_000L);
    final List<Event> events = new CopyOnWriteArrayList<>();
    final AtomicBoolean watches = new AtomicBoolean(true);

    AgentRegistry registry(Database db) {
        EventBus bus = new EventBus();
        bus.subscribe(e -> true, events::add);
        EventStore store = new EventStore(db.jdbi(), bus, clock);
        return new AgentRegistry(db.jdbi(), store, new InventoryService(db.jdbi(), new InventoryStore(), store), null,
                clock, watches::get);
    }

    /** What the server the agent is connected to wrote: its row, heartbeat interval and when it last heard from it. */
    void writtenByItsServer(Database db, String id, int heartbeatSeconds) {
        db.jdbi().useHandle(h -> h.createUpdate("INSERT INTO agent (id, grains, heartbeat_seconds, online, last_seen) "
                        + "VALUES (:id, '{}', :hb, TRUE, :seen)").bind("id", id).bind("hb", heartbeatSeconds)
                .bind("seen", OffsetDateTime.ofInstant(clock.instant(), java.time.ZoneOffset.UTC)).execute());
    }

    static Event peerEvent(String tag) {
        return new Event(1, tag, OffsetDateTime.now(), Map.of("id", tag.split("/")[2]));
    }

    @OnBothDatabases
    void anAgentOfAServerThatStoppedIsLostOnceNoServerHeardFromIt(String kind) {
        TestDatabases.on(kind, db -> {
            writtenByItsServer(db, "far-1", 10);
            AgentRegistry agents = registry(db);
            agents.peerReported(peerEvent("drover/agent/far-1/online"));
            assertThat(agents.online("far-1")).isTrue();

            clock.advance(Duration.ofSeconds(50)); // three heartbeats of 10 s and the 30 s last-seen delay: not yet
            agents.checkPresence();
            assertThat(agents.online("far-1")).isTrue();

            clock.advance(Duration.ofSeconds(31));
            agents.checkPresence();
            assertThat(agents.online("far-1")).isFalse();
            assertThat(events).filteredOn(e -> e.tag().equals("drover/agent/far-1/lost")).singleElement()
                    .satisfies(e -> assertThat(String.valueOf(e.data().get("reason"))).contains("not heard from by any server"));
            boolean stored = db.jdbi().withHandle(h -> h.createQuery("SELECT online FROM agent WHERE id = 'far-1'")
                    .mapTo(Boolean.class).one());
            assertThat(stored).isFalse();
        });
    }

    @OnBothDatabases
    void aServerThatDoesNotWatchLeavesRemoteAgentsToTheOneThatDoes(String kind) {
        TestDatabases.on(kind, db -> {
            watches.set(false);
            writtenByItsServer(db, "far-2", 10);
            AgentRegistry agents = registry(db);
            agents.peerReported(peerEvent("drover/agent/far-2/online"));
            clock.advance(Duration.ofMinutes(10));
            agents.checkPresence();
            assertThat(agents.online("far-2")).isTrue();
            assertThat(events).noneMatch(e -> e.tag().endsWith("/lost"));

            // the agent was heard from recently by its server (it moved there): not lost
            watches.set(true);
            db.jdbi().useHandle(h -> h.createUpdate("UPDATE agent SET last_seen = :seen WHERE id = 'far-2'")
                    .bind("seen", OffsetDateTime.ofInstant(clock.instant(), java.time.ZoneOffset.UTC)).execute());
            agents.checkPresence();
            assertThat(agents.online("far-2")).isTrue();
        });
    }

    @OnBothDatabases
    void whenEachAgentWasLastHeardIsWrittenForAllOfThemInOneFlush(String kind) {
        TestDatabases.on(kind, db -> {
            AgentRegistry agents = registry(db);
            List<String> ids = java.util.stream.IntStream.range(0, 50).mapToObj(i -> "here-" + i).toList();
            ids.forEach(agents::seen);
            agents.checkPresence(); // their rows, and the first flush
            clock.advance(Duration.ofSeconds(31));
            ids.forEach(agents::seen);
            java.time.Instant heard = clock.instant();
            clock.advance(Duration.ofSeconds(1));
            agents.checkPresence();
            List<java.time.Instant> stored = db.jdbi().withHandle(h -> h.createQuery("SELECT last_seen FROM agent ORDER BY id")
                    .map((rs, ctx) -> io.drover.server.store.SqlTime.read(rs, "last_seen").toInstant()).list());
            assertThat(stored).hasSize(50).containsOnly(heard);
        });
    }

    @OnBothDatabases
    void lastSeenTimesAFlushCouldNotWriteAreWrittenByTheNext(String kind) {
        TestDatabases.on(kind, db -> {
            AgentRegistry agents = registry(db);
            agents.seen("here-1");
            agents.checkPresence();
            clock.advance(Duration.ofSeconds(31));
            agents.seen("here-1");
            java.time.Instant heard = clock.instant();
            db.jdbi().useHandle(h -> h.execute("ALTER TABLE agent RENAME COLUMN last_seen TO last_seen_away"));
            org.assertj.core.api.Assertions.assertThatThrownBy(agents::checkPresence).isInstanceOf(RuntimeException.class);
            db.jdbi().useHandle(h -> h.execute("ALTER TABLE agent RENAME COLUMN last_seen_away TO last_seen"));
            clock.advance(Duration.ofSeconds(31));
            agents.checkPresence();
            java.time.Instant stored = db.jdbi().withHandle(h -> h.createQuery("SELECT last_seen FROM agent WHERE id = 'here-1'")
                    .map((rs, ctx) -> io.drover.server.store.SqlTime.read(rs, "last_seen").toInstant()).one());
            assertThat(stored).isEqualTo(heard);
        });
    }

    @OnBothDatabases
    void anAgentThatMovesHereFromAnotherServerIsAnnouncedOnlineWithWhenItWasHeard(String kind) {
        TestDatabases.on(kind, db -> {
            writtenByItsServer(db, "far-3", 5);
            AgentRegistry agents = registry(db);
            agents.peerReported(peerEvent("drover/agent/far-3/online"));
            clock.advance(Duration.ofSeconds(40)); // its server died 40 s after it last wrote when it heard the agent

            agents.seen("far-3"); // the agent moved here
            agents.checkPresence();
            assertThat(events).filteredOn(e -> e.tag().equals("drover/agent/far-3/online")).singleElement()
                    .satisfies(e -> assertThat(e.data().get("reason")).isEqualTo("moved here"));
            OffsetDateTime stored = db.jdbi().withHandle(h -> h.createQuery("SELECT last_seen FROM agent WHERE id = 'far-3'")
                    .map((rs, ctx) -> io.drover.server.store.SqlTime.read(rs, "last_seen")).one());
            assertThat(stored.toInstant()).as("the watcher of remote agents reads a fresh last-seen").isEqualTo(clock.instant());

            agents.seen("far-3");
            agents.checkPresence();
            assertThat(events).as("announced once, not on every request").filteredOn(e -> e.tag().endsWith("/online")).hasSize(1);
        });
    }

    @OnBothDatabases
    void aServerThatLosesAnAgentConnectedHereIsToldAgainThatItIsOnline(String kind) {
        TestDatabases.on(kind, db -> {
            watches.set(false);
            AgentRegistry agents = registry(db);
            agents.seen("near-1");
            agents.checkPresence();
            events.clear();

            // another server had it online through a server that died, and lost it after it moved here
            agents.peerReported(peerEvent("drover/agent/near-1/lost"));
            assertThat(agents.online("near-1")).isTrue();
            agents.checkPresence();
            assertThat(events).filteredOn(e -> e.tag().equals("drover/agent/near-1/online")).singleElement()
                    .satisfies(e -> assertThat(e.data().get("reason")).isEqualTo("connected here"));
        });
    }
}
