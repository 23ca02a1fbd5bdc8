package io.drover.server.diagnosis;

import static io.drover.server.diagnosis.DiagnosisModuleTest.ADMIN;
import static io.drover.server.diagnosis.DiagnosisModuleTest.DB_1;
import static io.drover.server.diagnosis.DiagnosisModuleTest.WEB_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.drover.core.diagnosis.Alert;
import io.drover.core.diagnosis.DiagnosisProgress;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.auth.Role;
import io.drover.model.diagnosis.AlertReceipt;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisPhase;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.model.inventory.Host;
import io.drover.server.auth.Principal;
import io.drover.server.cluster.WorkLeaseStore;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import io.drover.server.store.Database;
import io.drover.server.store.Dialect;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * A diagnosis's life on the server, on SQLite and on PostgreSQL: cancelled mid-operation (the operation's job killed,
 * no later node), by another server of the cluster than the one running it; deleted only once ended; scoped tokens
 * reach only their businesses' diagnoses; the retention (count per host, age) never deletes a running one; and a start
 * that fails claims nothing (an alert's fingerprint, an event trigger's last start, a cron trigger's schedule time).
 */
class DiagnosisLifecycleTest {
    static final Principal SHOP_OPERATOR = new Principal(2, "ops-2", Role.OPERATOR, Set.of(2L));

    /**
     * Agents that answer operations and kills: each call's job id goes to the caller's sending hook before the call
     * "goes out" (a hook that throws keeps it from going out, as JobService does); while {@link #hold} is set,
     * operations wait, and a kill of an operation's job makes it answer as killed.
     */
    static final class Agents implements AgentCalls {
        final List<AgentCall<?>> calls = new CopyOnWriteArrayList<>();
        final Set<String> running = ConcurrentHashMap.newKeySet();
        final Set<String> killed = ConcurrentHashMap.newKeySet();
        final AtomicInteger jobs = new AtomicInteger();
        final AtomicBoolean online = new AtomicBoolean(true);
        volatile CountDownLatch hold;
        /** Runs while a kill is under way, before the agent answers it. */
        volatile Runnable duringKill = () -> { };

        @Override
        public AgentCalls forBusinesses(Set<Long> bizIds) {
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, CallOptions options) {
            if (options.resumeJid() != null) {
                throw new UnsupportedOperationException("these fake agents cannot resume job " + options.resumeJid());
            }
            String jid = "2026112710000000000" + jobs.incrementAndGet();
            try {
                options.sending().accept(jid);
            } catch (RuntimeException e) {
                return Outcome.failed("agent " + agentId + " cannot be sent the call: " + e.getMessage());
            }
            calls.add(call);
            if (call instanceof AgentCall.KillJob kill) {
                boolean found = running.contains(kill.jid());
                killed.add(kill.jid());
                duringKill.run();
                CountDownLatch h = hold;
                if (found && h != null) {
                    h.countDown();
                }
                return new Outcome<>(true, (R) new AgentResult.JobKilled(kill.jid(), found, found ? 2 : 0), jid, "ok");
            }
            running.add(jid);
            try {
                CountDownLatch h = hold;
                if (h != null) {
                    h.await();
                }
            } catch (InterruptedException e) {
                return Outcome.unanswered(jid, "interrupted");
            } finally {
                running.remove(jid);
            }
            if (killed.contains(jid)) {
                return new Outcome<>(false, null, jid, "killed");
            }
            if (call instanceof AgentCall.RunOperation run) {
                return new Outcome<>(true, (R) new AgentResult.OperationOutcome(true, Map.of("ran." + run.run().operation(), "yes"), null),
                        jid, "ok");
            }
            return Outcome.failed("unexpected " + call);
        }

        List<String> operationsRun() {
            List<String> out = new ArrayList<>();
            calls.forEach(c -> out.add(c instanceof AgentCall.RunOperation r ? r.run().operation()
                    : c instanceof AgentCall.KillJob k ? "kill " + k.jid() : c.toString()));
            return out;
        }
    }

    final Agents agents = new Agents();
    final ManualClock clock = new ManualClock(Instant.parse("2026-11-27T10:00:00Z").toEpochMilli());
    final EventBus bus = new EventBus();
    final List<DiagnosisModule> modules = new ArrayList<>();
    TestDatabases.Target target;
    Database db;

    void open(String kind) {
        target = TestDatabases.named(kind);
        db = target.open();
    }

    /** A server's diagnosis module on the shared database; {@code alone}: a server without a cluster. */
    DiagnosisModule server(boolean alone) {
        EventStore events = new EventStore(db.jdbi(), bus, clock);
        DiagnosisModule m = new DiagnosisModule(new DiagnosisModule.Needs(db.jdbi(), events, agents, null, null,
                ref -> List.of(WEB_1, DB_1).stream().filter(h -> ref.equals(h.bkHostName()) || ref.equals(h.bkHostInnerip())
                        || ref.equals(String.valueOf(h.bkHostId()))).toList(),
                (principal, biz, set, module, limit) -> new io.drover.model.api.Page<>(List.<Host>of(), 0, 0, limit),
                host -> "agent-" + host, a -> a.equals("agent-1") ? 1L : a.equals("agent-2") ? 2L : null, a -> agents.online.get(),
                new WorkLeaseStore(db.jdbi(), clock, alone), clock),
                new DiagnosisModule.Settings(10, new DiagnosisRunner.Retry(Duration.ofMillis(50), 6), Duration.ofHours(6), 1000,
                        new Diagnoses.Retention(20, Duration.ofHours(240))));
        m.start(bus, () -> true);
        modules.add(m);
        return m;
    }

    @AfterEach
    void close() throws Exception {
        CountDownLatch h = agents.hold;
        if (h != null) {
            h.countDown();
        }
        for (DiagnosisModule m : modules) {
            m.close();
        }
        if (db != null) {
            db.close();
            target.drop().run();
        }
    }

    static long diagnose(DiagnosisModule m, Principal who, String host) {
        return m.diagnoses().create(who, new KubeDocument(null, "Diagnosis", Map.of("name", "d"),
                Map.of("operationSet", "host-overview", "nodeName", host))).diagnoses().get(0).id();
    }

    static DiagnosisInfo get(DiagnosisModule m, long id) {
        return m.diagnoses().get(ADMIN, id, Duration.ZERO);
    }

    // ---- cancel and delete

    @OnBothDatabases
    void aDiagnosisCancelledOnAnotherServerMidOperationHasItsJobKilledAndRunsNoLaterNode(String kind) {
        open(kind);
        DiagnosisModule running = server(false);
        DiagnosisModule other = server(false);
        agents.hold = new CountDownLatch(1);
        long id = diagnose(running, ADMIN, "web-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.running.size() == 1);
        String jid = agents.running.iterator().next();

        DiagnosisInfo cancelled = other.diagnoses().cancel(ADMIN, id);

        assertThat(cancelled.phase()).isEqualTo(DiagnosisPhase.CANCELLED);
        DiagnosisInfo.Condition last = cancelled.conditions().getLast();
        assertThat(last.type()).isEqualTo("Complete");
        assertThat(last.reason()).isEqualTo("Cancelled");
        assertThat(last.message()).isEqualTo("cancelled by admin while node 1 ran (job " + jid + "); job " + jid
                + " killed on agent agent-1 (2 process(es) signalled)");
        assertThat(agents.killed).containsExactly(jid);
        // the killed operation answered the running server, which records nothing and starts no further node
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> agents.calls.size() == 2);
        assertThat(agents.operationsRun()).containsExactly("host-facts", "kill " + jid);
        DiagnosisInfo after = get(running, id);
        assertThat(after.phase()).isEqualTo(DiagnosisPhase.CANCELLED);
        assertThat(after.nodes()).isEmpty();
        assertThat(after.conditions()).isEqualTo(cancelled.conditions());
        assertThat(running.diagnoses().list(ADMIN, "Cancelled", 10)).extracting(DiagnosisInfo.Summary::id).containsExactly(id);
        // cancelling it again answers it as it is
        assertThat(running.diagnoses().cancel(ADMIN, id).conditions()).isEqualTo(cancelled.conditions());
        assertThat(agents.killed).hasSize(1);
    }

    @OnBothDatabases
    void aDiagnosisCancelledWhileItWaitsForAnOfflineAgentNeverRunsANode(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        agents.online.set(false);
        long id = diagnose(m, ADMIN, "web-1");
        DiagnosisInfo cancelled = m.diagnoses().cancel(ADMIN, id);
        assertThat(cancelled.conditions().getLast().message()).isEqualTo("cancelled by admin");
        agents.online.set(true);
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> agents.calls.isEmpty());
        assertThat(get(m, id).phase()).isEqualTo(DiagnosisPhase.CANCELLED);
    }

    @OnBothDatabases
    void theCallOfADiagnosisCancelledAsItGoesOutIsNotSent(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        DiagnosisStore repository = new DiagnosisStore();
        long id = jdbiInsertRunning(repository, WEB_1);
        assertThat(check(h -> repository.markSent(h, id, 1, "j1"))).isTrue();
        DiagnosisInfo cancelled = m.diagnoses().cancel(ADMIN, id);
        assertThat(cancelled.conditions().getLast().message()).startsWith("cancelled by admin while node 1 ran (job j1); ");
        // the runner's writes after the cancel are refused: a new call's job, the node's outcome
        assertThat(check(h -> repository.markSent(h, id, 2, "j2"))).isFalse();
        DiagnosisStore.Row row = db.jdbi().withHandle(h -> repository.find(h, id)).orElseThrow();
        assertThat(check(h -> repository.saveProgress(h, id, new DiagnosisStore.Progress(
                DiagnosisProgress.after(List.of(List.of(1)), DiagnosisProgress.start(), true, Map.of(), null), List.of(), List.of()),
                OffsetDateTime.now(clock)))).isFalse();
        assertThat(get(m, id).phase()).isEqualTo(DiagnosisPhase.CANCELLED);
        assertThat(check(h -> repository.ended(h, id))).isTrue();
        assertThat(row.progress().state().phase()).isEqualTo(DiagnosisPhase.CANCELLED);
    }

    boolean check(java.util.function.Function<org.jdbi.v3.core.Handle, Boolean> query) {
        return db.jdbi().withHandle(query::apply);
    }

    long jdbiInsertRunning(DiagnosisStore repository, Host host) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        return db.jdbi().withHandle(h -> repository.insert(h, new DiagnosisStore.Row(0, "d", "host-overview", "x", host.bkHostId(),
                host.bkHostName(), host.bkBizId(), "agent-" + host.bkHostId(), "api", null, Map.of(),
                new DiagnosisStore.Progress(DiagnosisProgress.start(), List.of(now), List.of()), "admin", now, now)));
    }

    @OnBothDatabases
    void aDiagnosisDeletedWhileItsCancelKillsTheJobIsAnsweredAsCancelledNotAsMissing(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        agents.hold = new CountDownLatch(1);
        long id = diagnose(m, ADMIN, "web-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.running.size() == 1);
        // the cancel has recorded Cancelled, so a delete (or the retention) may remove it before the kill is answered
        agents.duringKill = () -> m.diagnoses().delete(ADMIN, id);

        DiagnosisInfo cancelled = m.diagnoses().cancel(ADMIN, id);

        assertThat(cancelled.phase()).isEqualTo(DiagnosisPhase.CANCELLED);
        assertThat(cancelled.conditions().getLast().message()).contains("killed on agent agent-1");
        assertThatThrownBy(() -> get(m, id)).hasMessage("diagnosis " + id + " does not exist");
        assertThatThrownBy(() -> m.diagnoses().cancel(ADMIN, id)).hasMessage("diagnosis " + id + " does not exist");
    }

    @OnBothDatabases
    void onlyAnEndedDiagnosisIsDeletedAndScopedTokensReachOnlyTheirBusinesses(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        agents.hold = new CountDownLatch(1);
        long web = diagnose(m, SHOP_OPERATOR, "web-1");
        long db1 = diagnose(m, ADMIN, "db-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.running.size() == 2);

        assertThatThrownBy(() -> m.diagnoses().delete(SHOP_OPERATOR, web)).isInstanceOf(DomainException.class)
                .hasMessage("diagnosis " + web + " has not ended: cancel it first (POST /api/v1/diagnoses/" + web
                        + "/cancel, drover diag cancel " + web + "), then delete it")
                .extracting(e -> ((DomainException) e).code()).isEqualTo("diagnosis_running");
        // another business's diagnosis is not there for this token: neither cancelled nor deleted, nor said to exist
        assertThatThrownBy(() -> m.diagnoses().cancel(SHOP_OPERATOR, db1)).hasMessage("diagnosis " + db1 + " does not exist");
        assertThatThrownBy(() -> m.diagnoses().delete(SHOP_OPERATOR, db1)).hasMessage("diagnosis " + db1 + " does not exist");
        assertThatThrownBy(() -> m.diagnoses().cancel(SHOP_OPERATOR, 999_999)).hasMessage("diagnosis 999999 does not exist");
        assertThat(get(m, db1).phase()).isEqualTo(DiagnosisPhase.RUNNING);
        assertThat(agents.killed).isEmpty();

        assertThat(m.diagnoses().cancel(SHOP_OPERATOR, web).phase()).isEqualTo(DiagnosisPhase.CANCELLED);
        m.diagnoses().delete(SHOP_OPERATOR, web);
        assertThatThrownBy(() -> get(m, web)).hasMessage("diagnosis " + web + " does not exist");
        assertThatThrownBy(() -> m.diagnoses().delete(SHOP_OPERATOR, web)).hasMessage("diagnosis " + web + " does not exist");

        agents.hold.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> get(m, db1).phase() == DiagnosisPhase.SUCCEEDED);
        assertThatThrownBy(() -> m.diagnoses().cancel(ADMIN, db1)).isInstanceOf(DomainException.class)
                .hasMessage("diagnosis " + db1 + " has ended (Succeeded): there is nothing to cancel");
        m.diagnoses().delete(ADMIN, db1);
        assertThat(m.diagnoses().list(ADMIN, null, 100)).isEmpty();
    }

    // ---- retention

    @OnBothDatabases
    void theRetentionKeepsTheNewestEndedPerHostAndNoneTooOldAndNeverARunningOne(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        DiagnosisStore repository = new DiagnosisStore();
        long oldRunning = insert(repository, WEB_1, DiagnosisProgress.start());
        List<Long> web = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            web.add(insert(repository, WEB_1, ended(i)));
        }
        List<Long> dbHost = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            dbHost.add(insert(repository, DB_1, ended(i)));
        }
        Diagnoses.Retention retention = new Diagnoses.Retention(20, Duration.ofHours(240));

        // a pass is bounded: 3 of the 5 beyond the newest 20 of web-1, then the other 2
        assertThat(m.diagnoses().prune(retention, 3)).isEqualTo(3);
        assertThat(m.diagnoses().prune(retention)).isEqualTo(2);
        assertThat(m.diagnoses().prune(retention)).isZero();
        List<Long> left = ids(m);
        assertThat(left).containsAll(web.subList(5, 25)).containsAll(dbHost).contains(oldRunning).doesNotContainAnyElementsOf(web.subList(0, 5));

        clock.advance(Duration.ofHours(239));
        long fresh = insert(repository, DB_1, ended(0));
        assertThat(m.diagnoses().prune(retention)).isZero();
        clock.advance(Duration.ofHours(2));
        assertThat(m.diagnoses().prune(retention)).isEqualTo(23);
        assertThat(ids(m)).containsExactlyInAnyOrder(oldRunning, fresh);
        assertThat(get(m, oldRunning).phase()).isEqualTo(DiagnosisPhase.RUNNING);
    }

    static DiagnosisProgress.State ended(int i) {
        return i % 3 == 0 ? DiagnosisProgress.cancel(DiagnosisProgress.start(), "x")
                : i % 3 == 1 ? DiagnosisProgress.abort(DiagnosisProgress.start(), "AgentUnavailable", "x")
                : DiagnosisProgress.after(List.of(List.of(1)), DiagnosisProgress.start(), true, Map.of(), null);
    }

    long insert(DiagnosisStore repository, Host host, DiagnosisProgress.State state) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        return db.jdbi().withHandle(h -> repository.insert(h, new DiagnosisStore.Row(0, "d", "host-overview", "x", host.bkHostId(),
                host.bkHostName(), host.bkBizId(), null, "api", null, Map.of(),
                new DiagnosisStore.Progress(state, List.of(now), List.of()), "admin", now, now)));
    }

    static List<Long> ids(DiagnosisModule m) {
        return m.diagnoses().list(ADMIN, null, 1000).stream().map(DiagnosisInfo.Summary::id).toList();
    }

    // ---- a failed start claims nothing (issue 32, item 8)

    /** Makes the database refuse (or accept again) new diagnoses of host 1 (web-1): a start that fails after its claim. */
    void refuseDiagnoses(boolean refuse) {
        boolean postgres = db.dialect() == Dialect.POSTGRESQL;
        db.jdbi().useHandle(h -> {
            if (refuse && postgres) {
                h.execute("CREATE FUNCTION refuse_diagnosis() RETURNS trigger AS $$ BEGIN IF NEW.host_id = 1 THEN "
                        + "RAISE EXCEPTION 'injected: no diagnosis'; END IF; RETURN NEW; END; $$ LANGUAGE plpgsql");
                h.execute("CREATE TRIGGER refuse_diagnosis BEFORE INSERT ON diagnosis FOR EACH ROW EXECUTE FUNCTION refuse_diagnosis()");
            } else if (refuse) {
                h.execute("CREATE TRIGGER refuse_diagnosis BEFORE INSERT ON diagnosis WHEN NEW.host_id = 1 BEGIN "
                        + "SELECT RAISE(ABORT, 'injected: no diagnosis'); END");
            } else if (postgres) {
                h.execute("DROP TRIGGER refuse_diagnosis ON diagnosis");
                h.execute("DROP FUNCTION refuse_diagnosis()");
            } else {
                h.execute("DROP TRIGGER refuse_diagnosis");
            }
        });
    }

    static Alert alert(String instance) {
        return new Alert("firing", Map.of("alertname", "ExporterDown", "instance", instance, "job", "node"), Map.of(),
                "2026-11-27T09:59:00Z", null, null, null);
    }

    @OnBothDatabases
    void anAlertWhoseStartFailedIsStartedByAlertmanagersRetry(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        agents.online.set(false);
        m.catalog().put("Trigger", "exporter-down", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "host-overview",
                "sourceTemplate", Map.of("prometheusAlertTemplate", Map.of("regexp", Map.of("alertName", "^ExporterDown$"),
                        "nodeNameReferenceLabel", "instance")))));
        refuseDiagnoses(true);
        assertThatThrownBy(() -> m.alerts().receive(ADMIN, List.of(alert("web-1:9100")))).hasStackTraceContaining("injected: no diagnosis");
        refuseDiagnoses(false);

        AlertReceipt retry = m.alerts().receive(ADMIN, List.of(alert("web-1:9100")));
        assertThat(retry.repeated()).as("the failed start claimed no fingerprint").isZero();
        assertThat(retry.started()).hasSize(1);
        assertThat(m.alerts().receive(ADMIN, List.of(alert("web-1:9100"))).repeated()).isEqualTo(1);
        // a second server with no memory of it finds the claim in the database
        DiagnosisModule other = server(false);
        assertThat(other.alerts().receive(ADMIN, List.of(alert("web-1:9100"))).repeated()).isEqualTo(1);
    }

    @OnBothDatabases
    void twoServersGivenTheSameAlertAtOnceStartOneDiagnosis(String kind) throws Exception {
        open(kind);
        List<DiagnosisModule> cluster = List.of(server(false), server(false));
        agents.online.set(false);
        KubeDocument trigger = new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "host-overview",
                "sourceTemplate", Map.of("prometheusAlertTemplate", Map.of("regexp", Map.of("alertName", "^ExporterDown$"),
                        "nodeNameReferenceLabel", "instance"))));
        cluster.forEach(m -> m.catalog().put("Trigger", "exporter-down", trigger));
        for (int round = 0; round < 10; round++) {
            Alert alert = alert("web-1:" + (9100 + round));
            CountDownLatch go = new CountDownLatch(1);
            List<java.util.concurrent.Future<AlertReceipt>> receipts = new ArrayList<>();
            try (var threads = java.util.concurrent.Executors.newFixedThreadPool(2)) {
                for (DiagnosisModule m : cluster) {
                    receipts.add(threads.submit(() -> {
                        go.await();
                        return m.alerts().receive(ADMIN, List.of(alert));
                    }));
                }
                go.countDown();
                int started = 0;
                int repeated = 0;
                for (var receipt : receipts) {
                    started += receipt.get().started().size();
                    repeated += receipt.get().repeated();
                }
                assertThat(started).as("round %d", round).isEqualTo(1);
                assertThat(repeated).as("round %d", round).isEqualTo(1);
            }
        }
        assertThat(ids(cluster.get(0))).hasSize(10);
    }

    @OnBothDatabases
    void anEventWhoseStartFailedLeavesTheNextMatchingEventFreeToStartIt(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        agents.online.set(false);
        m.catalog().put("Trigger", "plugin-exited", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "host-overview",
                "sourceTemplate", Map.of("droverEventTemplate", Map.of("regexp", Map.of("tag", "^drover/agent/[^/]+/plugin/[^/]+/exited$"))))));
        refuseDiagnoses(true);
        bus.publish(new io.drover.model.events.Event(7, "drover/agent/agent-1/plugin/exporter/exited", null, Map.of("id", "agent-1")));
        // only host 1 is refused: db-1's diagnosis, started after by the same worker, tells that web-1's start was tried
        bus.publish(new io.drover.model.events.Event(8, "drover/agent/agent-2/plugin/exporter/exited", null, Map.of("id", "agent-2")));
        await().atMost(Duration.ofSeconds(5)).until(() -> ids(m).size() == 1);
        refuseDiagnoses(false);
        bus.publish(new io.drover.model.events.Event(9, "drover/agent/agent-1/plugin/exporter/exited", null, Map.of("id", "agent-1")));
        await().atMost(Duration.ofSeconds(5)).until(() -> m.diagnoses().list(ADMIN, null, 100).stream()
                .anyMatch(d -> d.hostName().equals("web-1")));
        // started, it mutes the trigger on that host for the repeat interval
        bus.publish(new io.drover.model.events.Event(10, "drover/agent/agent-1/plugin/exporter/exited", null, Map.of("id", "agent-1")));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> m.diagnoses().list(ADMIN, null, 100).stream()
                .filter(d -> d.hostName().equals("web-1")).count() == 1);
    }

    @OnBothDatabases
    void aCronStartThatFailedIsTriedAgainAtTheNextTick(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        agents.online.set(false);
        m.catalog().put("Trigger", "nightly", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "host-overview",
                "nodeName", "web-1", "sourceTemplate", Map.of("cronTemplate", Map.of("schedule", "*/5 * * * *")))));
        clock.advance(Duration.ofMinutes(12));
        refuseDiagnoses(true);
        assertThat(m.cronTriggers().tick()).isZero();
        OffsetDateTime unchanged = m.catalog().triggerTimes().get("nightly");
        refuseDiagnoses(false);
        clock.advance(Duration.ofMinutes(1));
        assertThat(m.cronTriggers().tick()).as("lastScheduleTime was not advanced by the failed start").isEqualTo(1);
        assertThat(m.catalog().triggerTimes().get("nightly")).isAfter(unchanged);
        assertThat(m.cronTriggers().tick()).isZero();
    }

    @OnBothDatabases
    void twoServersCountingFromTheSameScheduleTimeStartOneDiagnosis(String kind) {
        open(kind);
        DiagnosisModule m = server(true);
        m.catalog().put("Trigger", "nightly", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "host-overview",
                "nodeName", "web-1", "sourceTemplate", Map.of("cronTemplate", Map.of("schedule", "*/5 * * * *")))));
        OffsetDateTime seen = m.catalog().triggerTimes().get("nightly");
        DiagnosisStore repository = new DiagnosisStore();
        OffsetDateTime now = OffsetDateTime.now(clock).plusMinutes(6).withOffsetSameInstant(ZoneOffset.UTC);
        assertThat(check(h -> repository.advanceSchedule(h, "nightly", seen, now))).isTrue();
        assertThat(check(h -> repository.advanceSchedule(h, "nightly", seen, now.plusSeconds(1)))).isFalse();
        assertThat(check(h -> repository.advanceSchedule(h, "nightly", now, now.plusMinutes(5)))).isTrue();
    }
}
