package io.drover.server.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.drover.core.match.Glob;
import io.drover.model.events.Event;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** The event outbox on SQLite and on the real PostgreSQL. */
class EventStoreTest {
    static final Glob ALL = Glob.compile("*");
    final EventBus bus = new EventBus();
    final List<Event> heard = new CopyOnWriteArrayList<>();

    {
        bus.subscribe(e -> true, heard::add);
    }

    @OnBothDatabases
    void appendedEventsArePublishedOnceInOrderAfterCommit(String kind) {
        TestDatabases.on(kind, db -> {
            EventStore store = new EventStore(db.jdbi(), bus, Clock.systemUTC());
            db.jdbi().useTransaction(h -> {
                store.append(h, "salt/key", Map.of("id", "web-1", "act", "accept"));
                store.appendAll(h, List.of(Map.entry("drover/a", Map.of("n", 1)), Map.entry("drover/b", Map.of("n", List.of(2, 3)))));
                store.appendAll(h, List.of());
            });
            assertThatThrownBy(() -> db.jdbi().useTransaction(h -> {
                store.append(h, "rolled/back", Map.of());
                throw new IllegalStateException("rollback");
            })).hasMessage("rollback");
            assertThat(heard).isEmpty();
            assertThat(store.after(0, ALL, 10)).as("unpublished events are not replayed").isEmpty();

            assertThat(store.publishPending()).isEqualTo(3);
            assertThat(heard).extracting(Event::tag).containsExactly("salt/key", "drover/a", "drover/b");
            assertThat(heard.get(0).data()).isEqualTo(Map.of("id", "web-1", "act", "accept"));
            assertThat(heard.get(2).data()).isEqualTo(Map.of("n", List.of(2, 3)));
            assertThat(heard).extracting(Event::id).isSorted().doesNotHaveDuplicates();
            assertThat(store.publishPending()).as("nothing twice").isZero();
            assertThat(heard).hasSize(3);
            assertThat(store.after(0, ALL, 10)).isEqualTo(heard);
        });
    }

    @OnBothDatabases
    void askingForPendingEventsSoonPublishesThemOnceOnThePublisherThread(String kind) {
        TestDatabases.on(kind, db -> {
            EventStore store = new EventStore(db.jdbi(), bus, Clock.systemUTC());
            for (int i = 0; i < 50; i++) {
                int n = i;
                db.jdbi().useTransaction(h -> store.append(h, "salt/key", Map.of("n", n)));
                store.publishPendingSoon(); // as fifty sign-ins of new keys at once ask
            }
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> heard.size() >= 50);
            assertThat(heard).extracting(e -> e.data().get("n")).containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, 50).boxed().toList());
            assertThat(store.publishPending()).as("marked published by the background pass").isZero();
            assertThat(heard).hasSize(50);
        });
    }

    @OnBothDatabases
    void publishPendingDrainsMoreThanOneBatch(String kind) {
        TestDatabases.on(kind, db -> {
            EventStore store = new EventStore(db.jdbi(), bus, Clock.systemUTC());
            List<Map.Entry<String, Map<String, Object>>> many = new ArrayList<>();
            for (int i = 0; i < 1201; i++) {
                many.add(Map.entry("bulk/" + i, Map.of("i", i)));
            }
            db.jdbi().useTransaction(h -> store.appendAll(h, many));
            assertThat(store.publishPending()).isEqualTo(1201);
            assertThat(heard).extracting(e -> e.data().get("i")).containsExactlyElementsOf(
                    many.stream().map(e -> e.getValue().get("i")).toList());
        });
    }

    @OnBothDatabases
    void appendPublishedEventsAreReplayableAndDeliveredAfterCommit(String kind) {
        TestDatabases.on(kind, db -> {
            EventStore store = new EventStore(db.jdbi(), bus, Clock.systemUTC());
            List<Map.Entry<String, Map<String, Object>>> tagged = new ArrayList<>();
            for (int i = 0; i < 1200; i++) {
                tagged.add(Map.entry((i % 3 == 0 ? "salt/job/" : "drover/agent/") + i, Map.of("i", i)));
            }
            List<Event> written = db.jdbi().inTransaction(h -> store.appendPublished(h, tagged));
            List<Event> none = db.jdbi().inTransaction(h -> store.appendPublished(h, List.of()));
            assertThat(none).isEmpty();
            assertThat(written).hasSize(1200).extracting(Event::id).isSorted().doesNotHaveDuplicates();
            assertThat(written.get(4).tag()).isEqualTo("drover/agent/4");
            assertThat(store.publishPending()).as("already published").isZero();
            assertThat(heard).isEmpty();

            List<Event> replayed = store.after(0, ALL, 5000);
            assertThat(replayed).extracting(Event::id, Event::tag, Event::data)
                    .containsExactlyElementsOf(written.stream().map(e -> tuple(e.id(), e.tag(), e.data())).toList());
            assertThat(replayed.getFirst().time().toInstant())
                    .isCloseTo(written.getFirst().time().toInstant(), within(1, ChronoUnit.MILLIS));
            List<Event> jobs = store.after(0, Glob.compile("salt/job/*"), 250);
            assertThat(jobs).as("the filter reads past the first batch of 500").hasSize(250)
                    .allSatisfy(e -> assertThat(e.tag()).startsWith("salt/job/"));
            assertThat(jobs.getLast().tag()).isEqualTo("salt/job/747");
            assertThat(store.after(written.get(1196).id(), Glob.compile("salt/job/*"), 10)).extracting(Event::tag)
                    .containsExactly("salt/job/1197");
            assertThat(store.after(written.getLast().id(), ALL, 10)).isEmpty();
            assertThat(store.after(0, Glob.compile("nothing/*"), 10)).isEmpty();

            store.publishCommitted(written.subList(0, 3));
            store.publishCommitted(List.of());
            await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 3);
            assertThat(heard).isEqualTo(written.subList(0, 3));
        });
    }

    @OnBothDatabases
    void pruneDeletesOnlyOldPublishedEvents(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-11-01T12:00:00Z").toEpochMilli());
            EventStore store = new EventStore(db.jdbi(), bus, clock);
            db.jdbi().inTransaction(h -> store.appendPublished(h, List.of(Map.entry("old/published", Map.of()))));
            db.jdbi().useTransaction(h -> store.append(h, "old/unpublished", Map.of()));
            clock.advance(Duration.ofDays(8));
            db.jdbi().inTransaction(h -> store.appendPublished(h, List.of(Map.entry("new/published", Map.of()))));

            assertThat(store.prune(10)).isZero();
            assertThat(store.prune(7)).isEqualTo(1);
            assertThat(store.after(0, ALL, 10)).extracting(Event::tag).containsExactly("new/published");
            assertThat(store.publishPending()).as("an unpublished event is never pruned").isEqualTo(1);
            assertThat(heard).extracting(Event::tag).containsExactly("old/unpublished");
        });
    }
}
