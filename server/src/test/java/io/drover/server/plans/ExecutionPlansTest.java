package io.drover.server.plans;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.plans.PlanRequest;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventBus;
import io.drover.server.jobs.JobService;
import io.drover.server.testing.JobServiceFixture;
import io.drover.server.testing.TestDatabases;
import io.drover.transport.envelope.JobReturn;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Execution plans on the Drover transport, with a real job service on SQLite and the publish to agents observed. */
class ExecutionPlansTest {
    @Test
    void aPlanIsStoredBeforeAnyAgentIsSentItSoThatItsFirstLogLineIsKept() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            JobServiceFixture fixture = JobServiceFixture.on(db, new EventBus(), clock, "auto-1");
            AtomicReference<ExecutionPlans> plans = new AtomicReference<>();
            List<Boolean> firstLogKept = new CopyOnWriteArrayList<>();
            // The agent answers at once: its first log line arrives while the job is being published.
            JobService jobs = fixture.jobs(
                    (load, minions) -> firstLogKept.add(plans.get().onLog("auto-1", "p-1", Map.of("Level", "Info", "Body", "starting"))));
            plans.set(new ExecutionPlans(db.jdbi(), jobs, fixture.agents()::businesses, clock));

            plans.get().submit(Principal.system("test"), new PlanRequest("auto-1", "list",
                    Map.of("FormatVersion", "2.0.0", "ID", "p-1", "Body", "return 1"), Map.of(), 60));

            assertThat(firstLogKept).containsExactly(true);
            assertThat(plans.get().get(Principal.system("test"), "p-1", java.time.Duration.ZERO).logs())
                    .extracting(l -> l.body()).containsExactly("starting");
        });
    }

    @Test
    void aBodyWithANullValueKeepsItsKeyInThePlanAndInTheJob() {
        TestDatabases.on("sqlite", db -> {
            Clock clock = Clock.systemUTC();
            JobServiceFixture fixture = JobServiceFixture.on(db, new EventBus(), clock, "auto-1");
            JobService jobs = fixture.jobs((load, minions) -> { });
            ExecutionPlans plans = new ExecutionPlans(db.jdbi(), jobs, fixture.agents()::businesses, clock);
            String jid = plans.submit(Principal.system("test"), new PlanRequest("auto-1", "list",
                    Map.of("FormatVersion", "2.0.0", "ID", "p-2", "Body", "return {'seen': None}"), Map.of(), 60)).jid();

            // What the agent returns: the Body's value {'seen': None}, as the msgpack decoder gives it.
            Map<String, Object> body = new java.util.HashMap<>();
            body.put("seen", null);
            Map<String, Object> document = new java.util.LinkedHashMap<>();
            document.put("FormatVersion", "2.0.0");
            document.put("SourceID", "p-2");
            document.put("ErrorCode", 0);
            document.put("Body", body);
            assertThat(jobs.onReturn("auto-1", JobReturn.fromWire(Map.of("jid", jid, "fun", "plan.execute", "return", document, "retcode", 0)))).isTrue();

            String plan = io.drover.model.Json.json().valueToTree(plans.get(Principal.system("test"), "p-2", java.time.Duration.ZERO)).toString();
            assertThat(plan).contains("\"Body\":{\"seen\":null}");
            assertThat(io.drover.model.Json.json().valueToTree(jobs.get(jid)).toString()).contains("\"Body\":{\"seen\":null}");
        });
    }
}
