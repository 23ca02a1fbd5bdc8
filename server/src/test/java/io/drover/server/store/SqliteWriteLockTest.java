package io.drover.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A burst of writers on SQLite: with only SQLite's busy handler (which sleeps and retries) some writers lost every
 * try and failed after the busy timeout while a thousand agents signed in; queued in this process they all succeed.
 */
class SqliteWriteLockTest {
    @Test
    void aBurstOfReadThenWriteTransactionsAndPlainWritesAllSucceed() {
        TestDatabases.Target target = TestDatabases.sqlite();
        try (Database db = Database.open(target.url(), "", "", 16)) {
            db.jdbi().useHandle(h -> h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (1, 'b', '{}')"));
            AtomicInteger failed = new AtomicInteger();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < 3_000; i++) {
                    int n = i;
                    done.add(pool.submit(() -> {
                        try {
                            if (n % 3 == 0) {
                                db.jdbi().useHandle(h -> h.execute("UPDATE business SET attributes = ? WHERE bk_biz_id = 1", "{\"n\":" + n + "}"));
                            } else {
                                // read, then write: the shape that fails at once when another writer committed in between
                                db.jdbi().useTransaction(h -> {
                                    long sets = 0;
                                    for (int q = 0; q < 20; q++) {
                                        sets = h.createQuery("SELECT count(*) FROM topo_set WHERE bk_set_name <> ?").bind(0, "x" + q)
                                                .mapTo(Long.class).one();
                                    }
                                    h.execute("INSERT INTO topo_set (bk_set_id, bk_biz_id, bk_set_name) VALUES (?, 1, ?)", 10 + n, "s" + n + "-" + sets);
                                    h.execute("UPDATE business SET attributes = ? WHERE bk_biz_id = 1", "{\"t\":" + n + "}");
                                });
                            }
                        } catch (RuntimeException e) {
                            failed.incrementAndGet();
                        }
                    }));
                }
                for (Future<?> f : done) {
                    try {
                        f.get();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
            }
            assertThat(failed).hasValue(0);
            long sets = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM topo_set").mapTo(Long.class).one());
            assertThat(sets).isEqualTo(2_000L);
        } finally {
            target.drop().run();
        }
    }

    @Test
    void selectsAreReadsAndEverythingElseWrites() {
        assertThat(SqliteWriteLock.isRead("  select 1")).isTrue();
        assertThat(SqliteWriteLock.isRead("SELECT * FROM host")).isTrue();
        assertThat(SqliteWriteLock.isRead("PRAGMA freelist_count")).isTrue();
        assertThat(SqliteWriteLock.isRead("PRAGMA incremental_vacuum")).isFalse();
        assertThat(SqliteWriteLock.isRead("INSERT INTO t VALUES (1)")).isFalse();
        assertThat(SqliteWriteLock.isRead("WITH x AS (SELECT 1) DELETE FROM t")).isFalse();
    }
}
