package io.drover.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.jobs.JobRequest;
import io.drover.server.auth.Principal;
import io.drover.server.testing.JobServiceFixture;
import io.drover.server.testing.TestDatabases;
import io.drover.transport.envelope.JobReturn;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A compromised agent's return: the server decides what it may store from the job it sent, not from the agent's claim. */
class ForgedReturnFunTest {
    @Test
    void aReturnClaimingDiagOperationForAnotherFunGetsTheOrdinaryLimitAndTheJobsOwnFun() {
        TestDatabases.on("sqlite", db -> {
            JobService jobs = JobServiceFixture.start(db, "auto-1");
            try {
                Principal admin = Principal.system("test");
                String jid = jobs.start(admin, new JobRequest("auto-1", "list", "test.ping", List.of(), Map.of(), 30)).jid();
                String big = "x".repeat(2 << 20);
                jobs.onReturn("auto-1", JobReturn.fromWire(Map.of("jid", jid, "fun", "diag.operation", "return", big)));
                assertThat(jobs.awaitReturn(admin, jid, "auto-1", Duration.ofSeconds(5))).hasValueSatisfying(ret -> {
                    assertThat(ret.ret()).isInstanceOf(String.class);
                    assertThat((String) ret.ret()).startsWith("the return of").contains("over the limit of " + (1 << 20));
                    assertThat(ret.success()).isFalse();
                });
                String event = db.jdbi().withHandle(h -> String.join(" ", h.createQuery(
                        "SELECT CAST(data AS VARCHAR) FROM event_outbox WHERE tag LIKE 'salt/job/%/ret/%'").mapTo(String.class).list()));
                assertThat(event).as("the return event names the job's fun").contains("test.ping").doesNotContain("diag.operation");
            } finally {
                jobs.close();
            }
        });
    }
}
