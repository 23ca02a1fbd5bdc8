package io.drover.server.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.drover.core.subscriptions.ChangePlanner.Copy;
import io.drover.model.subscriptions.CopyStatus;
import io.drover.server.subscriptions.DeploymentStore.Row;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What subscriptions deployed and the ports they hold, on SQLite and on the real PostgreSQL. */
class DeploymentStoreTest {
    static Row row(long sub, String instance, String step, long host, CopyStatus status, Integer port) {
        return new Row(sub, instance, step, host, 2, "exporter", "sub_" + sub + "_host_" + host, "1.0.0", status,
                Map.of("etc/exporter.yaml", "a".repeat(64), "bin/start.sh", "b".repeat(64)), port, null);
    }

    @OnBothDatabases
    void copiesAreSavedReplacedListedAndRemoved(String kind) {
        TestDatabases.on(kind, db -> {
            SubscriptionStore subscriptions = new SubscriptionStore(db.jdbi(), Clock.systemUTC());
            long one = subscriptions.create(SubscriptionStoreTest.EXPORTERS).id();
            long two = subscriptions.create(SubscriptionStoreTest.AGENTS).id();
            DeploymentStore store = new DeploymentStore(db.jdbi(), Clock.systemUTC());
            store.save(row(one, "host|1", "exporter", 1, CopyStatus.RUNNING, 9100));
            store.save(row(one, "host|2", "exporter", 2, CopyStatus.STOPPED, null));
            store.save(row(two, "host|1", "a", 1, CopyStatus.RUNNING, null));

            Row saved = store.of(one).stream().filter(r -> r.hostId() == 1).findFirst().orElseThrow();
            assertThat(saved).usingRecursiveComparison().ignoringFields("updatedAt")
                    .isEqualTo(row(one, "host|1", "exporter", 1, CopyStatus.RUNNING, 9100));
            assertThat(saved.updatedAt()).isNotNull();
            assertThat(store.of(one)).extracting(Row::hostId).containsExactlyInAnyOrder(1L, 2L);
            assertThat(store.of(one).stream().filter(r -> r.hostId() == 2).findFirst().orElseThrow().port()).isNull();
            assertThat(store.of(999)).isEmpty();

            store.save(new Row(one, "host|1", "exporter", 1, 2, "exporter", "g", "1.1.0", CopyStatus.UNKNOWN, Map.of(), 9101, null));
            assertThat(store.of(one)).as("saving the same copy replaces it").hasSize(2)
                    .filteredOn(r -> r.hostId() == 1).singleElement()
                    .satisfies(r -> assertThat(List.of(r.version(), r.status(), r.files(), r.port()))
                            .containsExactly("1.1.0", CopyStatus.UNKNOWN, Map.of(), 9101));

            assertThat(store.ofHost(1)).extracting(Row::subscriptionId, Row::stepId)
                    .containsExactlyInAnyOrder(tuple(one, "exporter"), tuple(two, "a"));
            assertThat(store.ofHost(3)).isEmpty();

            store.setStatus(one, "host|2", "exporter", 2, CopyStatus.RUNNING);
            store.setStatus(one, "host|9", "exporter", 9, CopyStatus.RUNNING);
            assertThat(store.of(one)).extracting(Row::status).containsOnly(CopyStatus.UNKNOWN, CopyStatus.RUNNING)
                    .containsOnlyOnce(CopyStatus.RUNNING);

            store.remove(one, "host|2", "exporter", 2);
            assertThat(store.of(one)).extracting(Row::hostId).containsExactly(1L);
            subscriptions.delete(two);
            assertThat(store.ofHost(1)).as("deleting a subscription deletes its copies").extracting(Row::subscriptionId)
                    .containsExactly(one);
        });
    }

    @OnBothDatabases
    void concurrentAllocationsOnOneHostGetDistinctPorts(String kind) {
        TestDatabases.on(kind, db -> {
            long sub = new SubscriptionStore(db.jdbi(), Clock.systemUTC()).create(SubscriptionStoreTest.EXPORTERS).id();
            DeploymentStore store = new DeploymentStore(db.jdbi(), Clock.systemUTC());
            List<Integer> range = IntStream.range(9100, 9108).boxed().toList();
            CountDownLatch start = new CountDownLatch(1);
            try (ExecutorService pool = Executors.newFixedThreadPool(range.size())) {
                List<Future<Optional<Integer>>> allocated = IntStream.range(0, range.size()).mapToObj(i -> pool.submit(() -> {
                    start.await();
                    return store.allocate(sub, "i" + i, "s", 1, range, Set.of());
                })).toList();
                start.countDown();
                assertThat(allocated).extracting(f -> f.get().orElseThrow()).as("a lost race moves on to the next port")
                        .containsExactlyInAnyOrderElementsOf(range);
            }
        });
    }

    @Test
    void byInstanceGroupsCopiesAsThePlannerTakesThem() {
        Row a = row(1, "i1", "s1", 1, CopyStatus.RUNNING, null);
        Row b = row(1, "i1", "s1", 2, CopyStatus.STOPPED, null);
        Row c = row(1, "i2", "s2", 3, CopyStatus.UNKNOWN, null);
        assertThat(DeploymentStore.byInstance(List.of(a, b, c))).isEqualTo(Map.of(
                "i1", Map.of("s1", List.of(a.copy(), b.copy())), "i2", Map.of("s2", List.of(c.copy()))));
        assertThat(a.copy()).isEqualTo(new Copy(1, "1.0.0", CopyStatus.RUNNING, a.files()));
        assertThat(DeploymentStore.byInstance(List.of())).isEmpty();
    }

    @OnBothDatabases
    void portsAreAllocatedOncePerHostAndReleasedWithTheCopy(String kind) {
        TestDatabases.on(kind, db -> {
            SubscriptionStore subscriptions = new SubscriptionStore(db.jdbi(), Clock.systemUTC());
            long sub = subscriptions.create(SubscriptionStoreTest.EXPORTERS).id();
            long other = subscriptions.create(SubscriptionStoreTest.AGENTS).id();
            DeploymentStore store = new DeploymentStore(db.jdbi(), Clock.systemUTC());
            List<Integer> range = List.of(9100, 9101, 9102);

            assertThat(store.heldPort(sub, "i1", "s", 1)).isEmpty();
            assertThat(store.allocate(sub, "i1", "s", 1, range, Set.of(9100))).as("9100 listens on the host").contains(9101);
            assertThat(store.heldPort(sub, "i1", "s", 1)).contains(9101);
            assertThat(store.allocate(sub, "i1", "s", 1, range, Set.of())).as("a copy keeps its port").contains(9101);
            assertThat(store.allocate(sub, "i2", "s", 1, range, Set.of())).contains(9100);
            assertThat(store.allocate(sub, "i1", "s", 2, range, Set.of())).as("another host").contains(9100);
            assertThat(store.allocate(other, "i1", "s", 1, range, Set.of())).contains(9102);
            assertThat(store.allocate(other, "i2", "s", 1, range, Set.of())).as("the range is used up").isEqualTo(Optional.empty());

            store.remove(sub, "i1", "s", 1);
            assertThat(store.heldPort(sub, "i1", "s", 1)).isEmpty();
            assertThat(store.allocate(other, "i2", "s", 1, range, Set.of())).as("released by remove").contains(9101);
            subscriptions.delete(other);
            assertThat(store.allocate(sub, "i3", "s", 1, range, Set.of())).as("released with the subscription").contains(9101);
            assertThat(store.allocate(sub, "i4", "s", 1, range, Set.of())).contains(9102);
        });
    }
}
