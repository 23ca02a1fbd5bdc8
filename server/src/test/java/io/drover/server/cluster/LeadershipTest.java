package io.drover.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.cluster.Leadership.Duty;
import io.drover.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Duties over the real PostgreSQL's advisory locks: one holder, handed on when it closes or its session dies. */
class LeadershipTest {
    TestDatabases.Target db;
    Leadership first;
    Leadership second;

    @BeforeEach
    void start() {
        db = TestDatabases.postgres();
        first = Leadership.shared(db.url(), db.user(), db.password());
        second = Leadership.shared(db.url(), db.user(), db.password());
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
        db.drop().run();
    }

    @Test
    void exactlyOneServerDoesEachDutyAndTheNextTakesItWhenItStops() {
        first.refresh();
        second.refresh();
        for (Duty duty : Duty.values()) {
            assertThat(first.leads(duty)).as(duty.name()).isTrue();
            assertThat(second.leads(duty)).as(duty.name()).isFalse();
        }
        second.refresh();
        assertThat(second.held()).isEmpty();

        first.close();
        assertThat(first.leads(Duty.PRUNING)).isFalse();
        second.refresh();
        assertThat(second.held()).isEqualTo(EnumSet.allOf(Duty.class));
    }

    @Test
    void aServerWhoseSessionDiedStopsLeadingAtOnceAndAnotherTakesOver() throws Exception {
        first.refresh();
        assertThat(first.leads(Duty.SUBSCRIPTION_TRIGGERS)).isTrue();
        try (Connection admin = DriverManager.getConnection(db.url(), db.user(), db.password())) {
            // what PostgreSQL does when a server is killed or cut off: its session ends and its locks go
            admin.createStatement().execute("SELECT pg_terminate_backend(pid) FROM pg_locks "
                    + "WHERE locktype = 'advisory' AND classid = (" + Leadership.LOCK_SPACE + ")::oid");
        }
        assertThat(first.leads(Duty.SUBSCRIPTION_TRIGGERS)).as("fenced: its lock went with its session").isFalse();
        second.refresh();
        assertThat(second.held()).isEqualTo(EnumSet.allOf(Duty.class));
        first.refresh();
        assertThat(first.held()).as("the new session finds every duty taken").isEmpty();
    }

    @Test
    void aServerAloneDoesEverything() {
        Leadership alone = Leadership.alone();
        alone.refresh();
        for (Duty duty : Duty.values()) {
            assertThat(alone.leads(duty)).isTrue();
        }
    }
}
