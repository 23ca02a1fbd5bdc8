package io.drover.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.util.List;

/**
 * A batch outside a transaction was one commit per row (on SQLite, each modified page logged once per row) and
 * bypassed the process's SQLite write lock: the agents' last-seen flush wrote 8,000 rows that way every 30 s.
 */
class JdbcBatchTest {
    private static final String INSERT = "INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (?, ?, '{}')";

    @OnBothDatabases
    void aBatchOutsideATransactionIsRefusedAndWritesNothing(String kind) {
        TestDatabases.on(kind, db -> {
            assertThatThrownBy(() -> db.jdbi().useHandle(h -> JdbcBatch.run(h, INSERT, List.of(1L, 2L), (s, id) -> {
                s.setLong(1, id);
                s.setString(2, "b" + id);
            }))).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside a transaction");
            assertThat(count(db)).isZero();
        });
    }

    @OnBothDatabases
    void aBatchInsideATransactionWritesEveryRowAtCommit(String kind) {
        TestDatabases.on(kind, db -> {
            db.jdbi().useTransaction(h -> JdbcBatch.run(h, INSERT, List.of(1L, 2L, 3L), (s, id) -> {
                s.setLong(1, id);
                s.setString(2, "b" + id);
            }));
            assertThat(count(db)).isEqualTo(3L);
        });
    }

    private static long count(Database db) {
        return db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM business").mapTo(Long.class).one());
    }
}
