package io.drover.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.cluster.WorkLeaseStore.Work;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jdbi.v3.core.Jdbi;

/** Leases on running tasks: renewed by their owner, taken once by one server when they run out. */
class WorkLeaseStoreTest {
    static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");

    static long task(Jdbi jdbi, String status, Instant created) {
        return jdbi.withHandle(h -> {
            long sub = h.createUpdate("INSERT INTO subscription (name, bk_biz_id, object_type, node_type, spec, enabled, created_at, updated_at) "
                    + "VALUES ('s', 2, 'HOST', 'TOPO', '{}', TRUE, :t, :t)").bind("t", OffsetDateTime.ofInstant(created, ZoneOffset.UTC))
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
            return h.createUpdate("INSERT INTO task (subscription_id, status, trigger_kind, actor, created_at) VALUES (:sub, :status, 'run', 'a', :t)")
                    .bind("sub", sub).bind("status", status).bind("t", OffsetDateTime.ofInstant(created, ZoneOffset.UTC))
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
        });
    }

    @OnBothDatabases
    void aRunningServersWorkIsNeverTakenAndADeadOnesIsTakenOnceWhenItsLeaseRunsOut(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(T0.toEpochMilli());
            WorkLeaseStore a = new WorkLeaseStore(db.jdbi(), clock, false);
            WorkLeaseStore b = new WorkLeaseStore(db.jdbi(), clock, false);
            WorkLeaseStore c = new WorkLeaseStore(db.jdbi(), clock, false);
            long running = task(db.jdbi(), "RUNNING", T0);
            long done = task(db.jdbi(), "SUCCESS", T0);
            a.own(Work.TASK, running);
            a.own(Work.TASK, done);

            clock.advance(Duration.ofSeconds(10));
            a.renew();
            clock.advance(Duration.ofSeconds(10));
            assertThat(b.claimAbandoned(Work.TASK, true)).as("renewed 10 s ago: a still runs it").isEmpty();
            assertThat(b.claimAbandoned(Work.TASK, false)).isEmpty();

            clock.advance(WorkLeaseStore.TERM); // a stopped renewing
            assertThat(a.claimAbandoned(Work.TASK, false)).as("a server never takes its own work").isEmpty();
            assertThat(b.claimAbandoned(Work.TASK, false)).as("finished work is nobody's").containsExactly(running);
            assertThat(c.claimAbandoned(Work.TASK, false)).as("taken once").isEmpty();
            clock.advance(Duration.ofSeconds(10));
            b.renew();
            clock.advance(Duration.ofSeconds(10));
            assertThat(c.claimAbandoned(Work.TASK, false)).isEmpty();
        });
    }

    @OnBothDatabases
    void workWithoutALeaseIsTakenOnlyOnceItIsOlderThanATermAndAServerAloneTakesAllAtItsStart(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(T0.toEpochMilli());
            long fresh = task(db.jdbi(), "RUNNING", T0);
            WorkLeaseStore peer = new WorkLeaseStore(db.jdbi(), clock, false);
            assertThat(peer.claimAbandoned(Work.TASK, true)).as("just created, its owner takes the lease next").isEmpty();
            clock.advance(WorkLeaseStore.TERM.plusSeconds(1));
            assertThat(peer.claimAbandoned(Work.TASK, false)).containsExactly(fresh);

            long leased = task(db.jdbi(), "RUNNING", T0);
            new WorkLeaseStore(db.jdbi(), clock, false).own(Work.TASK, leased);
            WorkLeaseStore restarted = new WorkLeaseStore(db.jdbi(), clock, true);
            assertThat(restarted.claimAbandoned(Work.TASK, true)).as("alone, at its start: all of its previous run")
                    .containsExactly(fresh, leased);
        });
    }
}
