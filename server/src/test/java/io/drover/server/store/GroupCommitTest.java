package io.drover.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.jdbi.v3.core.Handle;

/** Writes queued behind a running batch are committed together, each caller told its own outcome; on both databases. */
class GroupCommitTest {
    @OnBothDatabases
    void writesQueuedWhileABatchRunsShareOneTransactionAndEachGetsItsResult(String kind) {
        TestDatabases.on(kind, db -> {
            GroupCommit commit = new GroupCommit(db.jdbi(), 500);
            CountDownLatch firstInside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Set<Handle> transactions = ConcurrentHashMap.newKeySet();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Long> first = pool.submit(() -> commit.write(h -> {
                    firstInside.countDown();
                    await(release);
                    return insertBusiness(h, 1);
                }));
                await(firstInside);
                List<Future<Long>> queued = new ArrayList<>();
                for (int i = 2; i <= 301; i++) {
                    long id = i;
                    queued.add(pool.submit(() -> commit.write(h -> {
                        transactions.add(h);
                        return insertBusiness(h, id);
                    })));
                }
                Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> commit.queued() >= 300);
                release.countDown();
                assertThat(first.get()).isEqualTo(1L);
                for (int i = 0; i < queued.size(); i++) {
                    assertThat(queued.get(i).get()).isEqualTo(i + 2L);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertThat(transactions).hasSize(1);
            long rows = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM business").mapTo(Long.class).one());
            assertThat(rows).isEqualTo(301L);
        });
    }

    @OnBothDatabases
    void aWriteThatFailsFailsAloneAndTheOthersOfItsBatchAreCommitted(String kind) {
        TestDatabases.on(kind, db -> {
            db.jdbi().useHandle(h -> insertBusiness(h, 7));
            GroupCommit commit = new GroupCommit(db.jdbi(), 500);
            CountDownLatch firstInside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Long> first = pool.submit(() -> commit.write(h -> {
                    firstInside.countDown();
                    await(release);
                    return insertBusiness(h, 1);
                }));
                await(firstInside);
                List<Future<Long>> queued = new ArrayList<>();
                for (long id : new long[] {2, 7, 3}) { // 7 is taken: its insert breaks the batch's transaction
                    queued.add(pool.submit(() -> commit.write(h -> insertBusiness(h, id))));
                }
                Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> commit.queued() >= 3);
                release.countDown();
                assertThat(first.get()).isEqualTo(1L);
                assertThat(queued.get(0).get()).isEqualTo(2L);
                assertThatThrownBy(() -> queued.get(1).get()).hasRootCauseInstanceOf(java.sql.SQLException.class);
                assertThat(queued.get(2).get()).isEqualTo(3L);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            List<Long> ids = db.jdbi().withHandle(h -> h.createQuery("SELECT bk_biz_id FROM business ORDER BY bk_biz_id")
                    .mapTo(Long.class).list());
            assertThat(ids).containsExactly(1L, 2L, 3L, 7L);
        });
    }

    @OnBothDatabases
    void aThousandConcurrentWritersAreAllCommitted(String kind) {
        TestDatabases.on(kind, db -> {
            GroupCommit commit = new GroupCommit(db.jdbi(), 100);
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Long>> done = new ArrayList<>();
                for (long i = 1; i <= 1_000; i++) {
                    long id = i;
                    done.add(pool.submit(() -> commit.write(h -> insertBusiness(h, id))));
                }
                for (Future<Long> f : done) {
                    f.get();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            long rows = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM business").mapTo(Long.class).one());
            assertThat(rows).isEqualTo(1_000L);
        });
    }

    private static long insertBusiness(Handle h, long id) {
        h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (?, ?, '{}')", id, "b" + id);
        return id;
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("timed out");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
