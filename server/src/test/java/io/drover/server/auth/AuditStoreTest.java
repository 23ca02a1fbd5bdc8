package io.drover.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.api.Page;
import io.drover.model.auth.AuditEntry;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Duration;
import java.time.Instant;

/** The audit log on SQLite and on the real PostgreSQL. */
class AuditStoreTest {

    @OnBothDatabases
    void entriesArePagedNewestFirstWithLongValuesCut(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-11-25T10:00:00Z").toEpochMilli());
            AuditStore store = new AuditStore(db.jdbi(), clock);
            assertThat(store.list(0, 10)).isEqualTo(new Page<>(java.util.List.of(), 0, 0, 10));
            store.record("alice", "POST", "/api/v1/jobs", 202, "{\"fun\":\"test.ping\"}");
            store.record("bob", "DELETE", "/api/v1/keys/" + "k".repeat(2000), 404, "d".repeat(2500));
            store.record("unauthenticated", "PUT", "/api/v1/tokens", 401, null);

            Page<AuditEntry> all = store.list(0, 10);
            assertThat(all.total()).isEqualTo(3);
            assertThat(all.offset()).isZero();
            assertThat(all.limit()).isEqualTo(10);
            assertThat(all.items()).extracting(AuditEntry::actor).containsExactly("unauthenticated", "bob", "alice");
            AuditEntry alice = all.items().get(2);
            assertThat(alice.method()).isEqualTo("POST");
            assertThat(alice.path()).isEqualTo("/api/v1/jobs");
            assertThat(alice.status()).isEqualTo(202);
            assertThat(alice.detail()).isEqualTo("{\"fun\":\"test.ping\"}");
            assertThat(alice.at().toInstant()).isEqualTo(Instant.parse("2026-11-25T10:00:00Z"));
            AuditEntry bob = all.items().get(1);
            assertThat(bob.path()).hasSize(1024).startsWith("/api/v1/keys/kkk");
            assertThat(bob.detail()).isEqualTo("d".repeat(2000));
            assertThat(all.items().get(0).detail()).isNull();

            Page<AuditEntry> second = store.list(1, 1);
            assertThat(second.total()).isEqualTo(3);
            assertThat(second.items()).extracting(AuditEntry::actor).containsExactly("bob");
            assertThat(store.list(3, 10).items()).isEmpty();
        });
    }

    @OnBothDatabases
    void pruneDeletesEntriesOlderThanTheRetention(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-08-01T10:00:00Z").toEpochMilli());
            AuditStore store = new AuditStore(db.jdbi(), clock);
            store.record("older", "POST", "/b", 200, null);
            clock.advance(Duration.ofDays(60));
            store.record("old", "POST", "/a", 200, null);
            clock.advance(Duration.ofDays(31));
            store.record("new", "POST", "/c", 200, null);
            // now "older" is 91 days old and "old" 31
            assertThat(store.prune(90)).isEqualTo(1);
            assertThat(store.prune(90)).isZero();
            assertThat(store.prune(30)).isEqualTo(1);
            assertThat(store.list(0, 10).items()).extracting(AuditEntry::actor).containsExactly("new");
        });
    }
}
