package io.drover.server.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.drover.core.diagnosis.Alert;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentapi.ProcessOp;
import io.drover.model.agentapi.ProcessStatus;
import io.drover.model.auth.Role;
import io.drover.model.diagnosis.AlertReceipt;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisPhase;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.model.inventory.Host;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import io.drover.server.store.Database;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Diagnosis on the server against a fake agent and a real (SQLite) database: paths tried in order with failed paths
 * kept, the data map, an agent that stays offline, a server stop mid-operation resumed by the next start, an
 * operation set changed under a diagnosis, the alert webhook's rules and cron triggers.
 */
class DiagnosisModuleTest {
    static final Principal ADMIN = new Principal(1, "admin", Role.ADMIN, Set.of());
    static final Host WEB_1 = new Host(1L, 2L, "10.0.0.1", 0L, "web-1", "linux", "x86_64", List.of(), Map.of());
    static final Host DB_1 = new Host(2L, 3L, "10.0.0.2", 0L, "db-1", "linux", "x86_64", List.of(), Map.of());

    /** An agent per host whose answers a test programs: by operation name, and the plugin's status for proc.operate. */
    static final class FakeAgent implements AgentCalls {
        final List<AgentCall<?>> calls = new CopyOnWriteArrayList<>();
        final Map<String, Function<Map<String, String>, AgentResult.OperationOutcome>> operations = new ConcurrentHashMap<>();
        volatile ProcessStatus plugin = ProcessStatus.TERMINATED;
        volatile CountDownLatch hold;
        /** The businesses each operation's calls were limited to. */
        final List<Set<Long>> businesses = new CopyOnWriteArrayList<>();

        @Override
        public AgentCalls forBusinesses(Set<Long> bizIds) {
            businesses.add(bizIds);
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, CallOptions options) {
            if (options.resumeJid() != null) {
                throw new UnsupportedOperationException("this fake agent cannot resume job " + options.resumeJid());
            }
            calls.add(call);
            if (hold != null) {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    return Outcome.unanswered("j", "interrupted");
                }
            }
            return switch (call) {
                case AgentCall.RunOperation run -> new Outcome<>(true, (R) operations.getOrDefault(run.run().operation(),
                        d -> new AgentResult.OperationOutcome(true, Map.of("ran." + run.run().operation(), "yes"), null)).apply(run.run().data()),
                        "j", "ok");
                case AgentCall.OperateProcess op -> {
                    if (op.op() == ProcessOp.RESTART) {
                        plugin = ProcessStatus.RUNNING;
                    }
                    yield new Outcome<>(true, (R) new AgentResult.ProcessState(op.name(), op.op(), plugin, 4242L, null, false, null), "j", "ok");
                }
                default -> Outcome.failed("unexpected " + call);
            };
        }

        List<String> operationsRun() {
            List<String> out = new ArrayList<>();
            calls.forEach(c -> out.add(c instanceof AgentCall.RunOperation r ? r.run().operation()
                    : c instanceof AgentCall.OperateProcess p ? "proc." + p.op().name().toLowerCase() : c.toString()));
            return out;
        }
    }

    final FakeAgent agent = new FakeAgent();
    final AtomicBoolean online = new AtomicBoolean(true);
    final ManualClock clock = new ManualClock(Instant.parse("2026-11-25T10:00:00Z").toEpochMilli());
    final EventBus bus = new EventBus();
    TestDatabases.Target target;
    Database db;
    DiagnosisModule module;
    final java.util.concurrent.atomic.AtomicBoolean leading = new java.util.concurrent.atomic.AtomicBoolean(true);
    final java.util.concurrent.atomic.AtomicInteger leadsAsked = new java.util.concurrent.atomic.AtomicInteger();

    @BeforeEach
    void open() {
        target = TestDatabases.sqlite();
        db = target.open();
        module = start();
    }

    DiagnosisModule start() {
        EventStore events = new EventStore(db.jdbi(), bus, clock);
        DiagnosisModule m = new DiagnosisModule(new DiagnosisModule.Needs(db.jdbi(), events, agent, null, null,
                ref -> List.of(WEB_1, DB_1).stream().filter(h -> ref.equals(h.bkHostName()) || ref.equals(h.bkHostInnerip())
                        || ref.equals(String.valueOf(h.bkHostId()))).toList(),
                (principal, biz, set, module, limit) -> {
                    List<Host> under = List.of(WEB_1, DB_1).stream().filter(h -> biz == null || h.bkBizId().equals(biz))
                            .filter(h -> principal.mayTouch(h.bkBizId())).toList();
                    return new io.drover.model.api.Page<>(under, under.size(), 0, limit);
                },
                host -> "agent-" + host, a -> a.equals("agent-1") ? 1L : null, a -> online.get(),
                new io.drover.server.cluster.WorkLeaseStore(db.jdbi(), clock, true), clock),
                new DiagnosisModule.Settings(10, new DiagnosisRunner.Retry(Duration.ofMillis(20), 6), Duration.ofHours(6), 1000,
                        new Diagnoses.Retention(20, Duration.ofHours(240))));
        m.start(bus, () -> {
            leadsAsked.incrementAndGet();
            return leading.get();
        });
        return m;
    }

    @AfterEach
    void close() throws Exception {
        module.close();
        db.close();
        target.drop().run();
    }

    long diagnose(String set, Map<String, Object> parameters) {
        return module.diagnoses().create(ADMIN, new KubeDocument(null, "Diagnosis", Map.of("name", "d"),
                Map.of("operationSet", set, "nodeName", "web-1", "parameters", parameters))).diagnoses().get(0).id();
    }

    DiagnosisInfo finished(long id) {
        await().atMost(Duration.ofSeconds(20)).until(() -> module.diagnoses().get(ADMIN, id, Duration.ZERO).phase().wire().matches("Succeeded|Failed"));
        return module.diagnoses().get(ADMIN, id, Duration.ZERO);
    }

    @Test
    void aFailedCheckMovesToTheNextPathWhichRestartsThePlugin() {
        agent.operations.put("plugin-processes", data -> new AgentResult.OperationOutcome(true,
                Map.of("operation.plugin_processes.output", "no process of " + data.get("plugin")), null));
        DiagnosisInfo d = finished(diagnose("plugin-down", Map.of("plugin", "exporter")));
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.SUCCEEDED);
        assertThat(d.paths()).containsExactly(List.of(1, 2), List.of(1, 3, 4));
        assertThat(d.failedPaths()).containsExactly(List.of(1, 2));
        assertThat(d.succeededPath()).containsExactly(1, 3, 4);
        assertThat(d.checkpoint()).isEqualTo(new DiagnosisInfo.Checkpoint(1, 2));
        // the next path starts from its first node (KubeDiag v0.3.1 would have started path 2 at its second node)
        assertThat(agent.operationsRun()).containsExactly("plugin-processes", "proc.query", "plugin-processes", "proc.restart", "proc.query");
        assertThat(d.nodes()).extracting(DiagnosisInfo.NodeRun::node).containsExactly(1, 2, 1, 3, 4);
        assertThat(d.nodes().get(1).succeeded()).isFalse();
        assertThat(d.nodes().get(1).error()).isEqualTo("plugin exporter is terminated");
        // nodes 2 and 4 both write plugin.exporter.status: each run keeps its own, the merged map keeps the later one
        assertThat(d.nodes().get(1).results()).containsEntry("plugin.exporter.status", "TERMINATED");
        assertThat(d.nodes().get(4).results()).containsEntry("plugin.exporter.status", "RUNNING");
        assertThat(d.nodes().get(0).results()).isEqualTo(Map.of("operation.plugin_processes.output", "no process of exporter"));
        assertThat(d.operationResults()).containsEntry("operation.plugin_processes.output", "no process of exporter")
                .containsEntry("plugin.exporter.status", "RUNNING");
        assertThat(d.conditions()).extracting(DiagnosisInfo.Condition::type).containsExactly("Accepted", "PathFailed", "Complete");
        assertThat(d.conditions().get(1).message()).isEqualTo("path 1 failed at node 2: plugin exporter is terminated");
        AgentCall.RunOperation first = (AgentCall.RunOperation) agent.calls.get(0);
        assertThat(first.run().data()).containsEntry("plugin", "exporter").containsEntry("diagnosis.id", String.valueOf(d.id()))
                .containsEntry("host.name", "web-1").containsEntry("node", "web-1").containsEntry("business", "2");
        assertThat(first.run().script()).contains("ps -eo");
    }

    @Test
    void resultsOfEarlierNodesAreInTheDataAndParametersLoseToResults() {
        agent.operations.put("host-facts", data -> new AgentResult.OperationOutcome(true, Map.of("a", "from-result"), null));
        DiagnosisInfo d = finished(diagnose("host-overview", Map.of("a", "from-parameter", "b", "2")));
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.SUCCEEDED);
        AgentCall.RunOperation second = (AgentCall.RunOperation) agent.calls.get(1);
        assertThat(second.run().data()).containsEntry("a", "from-result").containsEntry("b", "2");
    }

    @Test
    void everyPathFailingFailsTheDiagnosisWithEachPathKept() {
        agent.operations.put("plugin-processes", data -> new AgentResult.OperationOutcome(false, Map.of("partial", "1"), "exit status 2"));
        DiagnosisInfo d = finished(diagnose("plugin-down", Map.of("plugin", "exporter")));
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.FAILED);
        assertThat(d.failedPaths()).containsExactly(List.of(1, 2), List.of(1, 3, 4));
        assertThat(d.succeededPath()).isEmpty();
        assertThat(d.operationResults()).containsEntry("partial", "1");
        assertThat(d.conditions().get(d.conditions().size() - 1).message()).isEqualTo("every path failed");
    }

    @Test
    void anAgentThatStaysOfflineFailsTheDiagnosisAfterTheRetries() {
        online.set(false);
        DiagnosisInfo d = finished(diagnose("host-overview", Map.of()));
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.FAILED);
        DiagnosisInfo.Condition last = d.conditions().get(d.conditions().size() - 1);
        assertThat(last.reason()).isEqualTo("AgentUnavailable");
        assertThat(last.message()).isEqualTo("agent agent-1 of host web-1 is offline; gave up after 7 attempts");
        assertThat(agent.calls).isEmpty();
    }

    @Test
    void aServerStopMidOperationResumesAtThatNodeOnTheNextStart() throws Exception {
        agent.hold = new CountDownLatch(1);
        long id = diagnose("host-overview", Map.of());
        await().atMost(Duration.ofSeconds(5)).until(() -> agent.calls.size() == 1);
        module.close();
        assertThat(module.diagnoses().get(ADMIN, id, Duration.ZERO).phase()).isEqualTo(DiagnosisPhase.RUNNING);
        agent.hold = null;
        module = start();
        DiagnosisInfo d = finished(id);
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.SUCCEEDED);
        // host-facts was cut short by the stop: it runs again, then the rest once each
        assertThat(agent.operationsRun()).containsExactly("host-facts", "host-facts", "disk-usage", "listening-ports");
        assertThat(d.nodes()).extracting(DiagnosisInfo.NodeRun::operation).containsExactly("host-facts", "disk-usage", "listening-ports");
    }

    @Test
    void anOperationStoredBeforeARuleThatNowRefusesItFailsTheDiagnosisNamingTheField() {
        // an httpServer without an address, as could be applied before Drover required one
        db.jdbi().useHandle(h -> new DiagnosisStore().putObject(h, new DiagnosisStore.ObjectRow("Operation", "host-facts",
                new KubeDocument("diagnosis.kubediag.org/v1", "Operation", Map.of("name", "host-facts"), Map.of("processor",
                        Map.of("httpServer", Map.of("path", "/processor/processCollector")))), null, false, null,
                java.time.OffsetDateTime.now(clock))));
        DiagnosisInfo d = finished(diagnose("host-overview", Map.of()));
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.FAILED);
        DiagnosisInfo.Condition last = d.conditions().get(d.conditions().size() - 1);
        assertThat(last.reason()).isEqualTo("OperationInvalid");
        assertThat(last.message()).startsWith("operation host-facts (node 1): spec.processor.httpServer.address: is required");
        assertThat(agent.calls).isEmpty();
    }

    @Test
    void anOperationSetChangedUnderADiagnosisFailsIt() {
        agent.hold = new CountDownLatch(1);
        long id = diagnose("host-overview", Map.of());
        await().atMost(Duration.ofSeconds(5)).until(() -> agent.calls.size() == 1);
        // replaced while node 1 runs: node 1 finishes, and the next step finds the set changed
        module.catalog().put("OperationSet", "host-overview", new KubeDocument(null, "OperationSet", Map.of(), Map.of("adjacencyList",
                List.of(Map.of("id", 0, "to", List.of(1)), Map.of("id", 1, "operation", "disk-usage")))));
        agent.hold.countDown();
        DiagnosisInfo d = finished(id);
        assertThat(d.phase()).isEqualTo(DiagnosisPhase.FAILED);
        assertThat(d.conditions().get(d.conditions().size() - 1).reason()).isEqualTo("OperationSetChanged");
        assertThat(d.nodes()).extracting(DiagnosisInfo.NodeRun::operation).containsExactly("host-facts");
        assertThat(agent.operationsRun()).containsExactly("host-facts");
    }

    KubeDocument alertTrigger(String name, String alertName) {
        return new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "plugin-down", "parameters", Map.of("plugin", "exporter"),
                "sourceTemplate", Map.of("prometheusAlertTemplate", Map.of("regexp", Map.of("alertName", alertName),
                        "nodeNameReferenceLabel", "instance", "parameterInjectionLabels", List.of("job")))));
    }

    static Alert alert(String name, String instance, String status) {
        return new Alert(status, Map.of("alertname", name, "instance", instance, "job", "node"), Map.of(), "2026-11-25T09:59:00Z", null, null, null);
    }

    @Test
    void alertsStartOneDiagnosisPerFingerprintWithinTheRepeatInterval() {
        module.catalog().put("Trigger", "a-exporter-down", alertTrigger("a-exporter-down", "^ExporterDown$"));
        module.catalog().put("Trigger", "b-anything", alertTrigger("b-anything", "Down"));
        AlertReceipt receipt = module.alerts().receive(ADMIN, List.of(alert("ExporterDown", "web-1:9100", "firing"),
                alert("ExporterDown", "web-1:9100", "firing"), alert("DiskFull", "web-1:9100", "firing"),
                alert("ExporterDown", "db-1:9100", "resolved"), alert("ExporterDown", "nowhere:9100", "firing")));
        assertThat(receipt.received()).isEqualTo(5);
        assertThat(receipt.resolved()).isEqualTo(1);
        assertThat(receipt.repeated()).isEqualTo(1);
        assertThat(receipt.unmatched()).isEqualTo(1);
        assertThat(receipt.started()).hasSize(1);
        assertThat(receipt.skipped()).extracting(AlertReceipt.Skipped::reason)
                .containsExactly("trigger a-exporter-down: 'nowhere' is not a host (a host id, name or inner address)");
        DiagnosisInfo d = module.diagnoses().get(ADMIN, receipt.started().get(0).id(), Duration.ZERO);
        assertThat(d.trigger()).isEqualTo("a-exporter-down");
        assertThat(d.source()).isEqualTo("alert");
        assertThat(d.hostName()).isEqualTo("web-1");
        assertThat(d.parameters()).containsEntry("plugin", "exporter").containsEntry("job", "node");
        assertThat(d.name()).matches("prometheus-alert\\.exporterdown\\.[0-9a-f]{7}\\.\\d+");

        assertThat(module.alerts().receive(ADMIN, List.of(alert("ExporterDown", "web-1:9100", "firing"))).repeated()).isEqualTo(1);
        clock.advance(Duration.ofHours(6).plusSeconds(1));
        assertThat(module.alerts().receive(ADMIN, List.of(alert("ExporterDown", "web-1:9100", "firing"))).started()).hasSize(1);
        // the second trigger takes what the first does not match
        assertThat(module.alerts().receive(ADMIN, List.of(alert("NodeDown", "db-1", "firing"))).started().get(0).hostName()).isEqualTo("db-1");
    }

    @Test
    void aTokenLimitedToABusinessDiagnosesOnlyItsHosts() {
        module.catalog().put("Trigger", "t", alertTrigger("t", "Down"));
        Principal scoped = new Principal(2, "ops-2", Role.OPERATOR, Set.of(2L));
        AlertReceipt receipt = module.alerts().receive(scoped, List.of(alert("Down", "db-1:9100", "firing"), alert("Down", "web-1", "firing")));
        assertThat(receipt.started()).extracting(s -> s.hostName()).containsExactly("web-1");
        // another business's host is as missing to the token: named by name or address, it is not a host
        assertThat(receipt.skipped().get(0).reason()).isEqualTo("trigger t: 'db-1' is not a host (a host id, name or inner address)");
        assertThatThrownBy(() -> module.diagnoses().create(scoped, new KubeDocument(null, "Diagnosis", Map.of("name", "d"),
                Map.of("operationSet", "host-overview", "hosts", List.of("web-1", "db-1"))))).isInstanceOf(DomainException.class)
                .hasMessageContaining("'db-1' is not a host").hasMessageNotContaining("business 3");
        assertThat(module.diagnoses().list(scoped, null, 100)).extracting(s -> s.hostName()).containsOnly("web-1");
        long other = module.diagnoses().create(ADMIN, new KubeDocument(null, "Diagnosis", Map.of("name", "d"),
                Map.of("operationSet", "host-overview", "nodeName", "db-1"))).diagnoses().get(0).id();
        assertThatThrownBy(() -> module.diagnoses().get(scoped, other, Duration.ZERO)).hasMessage("diagnosis " + other + " does not exist");
    }

    @Test
    void cronTriggersFireOncePerDueTimeAndGiveUpOnTooManyMissed() {
        module.catalog().put("Trigger", "nightly", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "host-overview",
                "nodeName", "web-1", "sourceTemplate", Map.of("cronTemplate", Map.of("schedule", "*/5 * * * *", "timeZone", "Asia/Shanghai")))));
        assertThat(module.cronTriggers().tick()).isZero();
        clock.advance(Duration.ofMinutes(12));
        assertThat(module.cronTriggers().tick()).isEqualTo(1);
        assertThat(module.cronTriggers().tick()).isZero();
        List<String> errors = new CopyOnWriteArrayList<>();
        bus.subscribe(e -> e.tag().endsWith("/error"), e -> errors.add(String.valueOf(e.data().get("message"))));
        clock.advance(Duration.ofMinutes(5 * 101));
        assertThat(module.cronTriggers().tick()).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> errors.size() == 1);
        assertThat(errors.get(0)).startsWith("too many missed start times (> 100)");
        clock.advance(Duration.ofMinutes(5));
        assertThat(module.cronTriggers().tick()).isEqualTo(1);
        assertThat(module.diagnoses().list(ADMIN, null, 100)).extracting(s -> s.name()).allMatch(n -> n.startsWith("cron.nightly."));
    }

    @Test
    void theLibraryChecksWhatIsAppliedAndKeepsAUsersOverride() {
        assertThatThrownBy(() -> module.catalog().put("OperationSet", "loop", new KubeDocument(null, "OperationSet", Map.of(),
                Map.of("adjacencyList", List.of(Map.of("id", 0, "to", List.of(1)), Map.of("id", 1, "operation", "disk-usage", "to", List.of(1)))))))
                .isInstanceOf(DomainException.class).hasMessageContaining("spec.adjacencyList");
        assertThatThrownBy(() -> module.catalog().put("OperationSet", "unknown", new KubeDocument(null, "OperationSet", Map.of(),
                Map.of("adjacencyList", List.of(Map.of("id", 0, "to", List.of(1)), Map.of("id", 1, "operation", "nope"))))))
                .hasMessageContaining("operation 'nope' does not exist");
        assertThatThrownBy(() -> module.catalog().delete("Operation", "disk-usage")).hasMessageContaining("host-overview");
        assertThatThrownBy(() -> module.catalog().put("Trigger", "bad-cron", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet",
                "host-overview", "nodeName", "web-1", "sourceTemplate", Map.of("cronTemplate", Map.of("schedule", "61 * * * *"))))))
                .hasMessageContaining("spec.sourceTemplate.cronTemplate.schedule");
        module.catalog().put("Operation", "disk-usage", new KubeDocument(null, "Operation", Map.of("name", "disk-usage"),
                Map.of("processor", Map.of("scriptRunner", Map.of("script", "df -i")))));
        module.catalog().loadLibrary();
        assertThat(module.catalog().get("Operation", "disk-usage").builtin()).isFalse();
        assertThat(module.catalog().get("Operation", "host-facts").builtin()).isTrue();
        assertThat(module.catalog().get("OperationSet", "plugin-down").paths()).containsExactly(List.of(1, 2), List.of(1, 3, 4));
    }

    @Test
    void droverEventsStartDiagnosesOnTheSendersHostOncePerInterval() {
        module.catalog().put("Trigger", "plugin-exited", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "plugin-down",
                "sourceTemplate", Map.of("droverEventTemplate", Map.of("regexp", Map.of("tag", "^drover/agent/[^/]+/plugin/[^/]+/exited$",
                        "data", "\"plugin\":\"exp"))))));
        online.set(false); // the diagnoses wait: this test is about how they start
        bus.publish(new io.drover.model.events.Event(7, "drover/agent/agent-1/plugin/exporter/exited", null,
                Map.of("id", "agent-1", "data", Map.of("plugin", "exporter"))));
        await().atMost(Duration.ofSeconds(5)).until(() -> module.diagnoses().list(ADMIN, null, 100).size() == 1);
        DiagnosisInfo d = module.diagnoses().get(ADMIN, module.diagnoses().list(ADMIN, null, 100).get(0).id(), Duration.ZERO);
        assertThat(d.source()).isEqualTo("event");
        assertThat(d.hostName()).isEqualTo("web-1");
        assertThat(d.parameters()).containsEntry("plugin", "exporter").containsEntry("event.tag", "drover/agent/agent-1/plugin/exporter/exited")
                .containsEntry("event.id", "7");
        // the same trigger and host within the interval; an agent naming another agent in the tag; data that does not match;
        // a diagnosis's own event: none starts a diagnosis
        bus.publish(new io.drover.model.events.Event(8, "drover/agent/agent-1/plugin/exporter/exited", null,
                Map.of("id", "agent-1", "data", Map.of("plugin", "exporter"))));
        bus.publish(new io.drover.model.events.Event(9, "drover/agent/agent-1/plugin/exporter/exited", null,
                Map.of("id", "agent-9", "data", Map.of("plugin", "exporter"))));
        bus.publish(new io.drover.model.events.Event(10, "drover/agent/agent-1/plugin/other/exited", null,
                Map.of("id", "agent-1", "data", Map.of("plugin", "other"))));
        bus.publish(new io.drover.model.events.Event(11, "drover/diagnosis/1/plugin/x/exited", null, Map.of("bk_host_id", 1)));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> module.diagnoses().list(ADMIN, null, 100).size() == 1);
        clock.advance(Duration.ofHours(7));
        bus.publish(new io.drover.model.events.Event(12, "drover/agent/agent-1/plugin/exporter/exited", null,
                Map.of("id", "agent-1", "data", Map.of("plugin", "exporter"))));
        await().atMost(Duration.ofSeconds(5)).until(() -> module.diagnoses().list(ADMIN, null, 100).size() == 2);
    }

    @Test
    void whetherThisServerLeadsIsAskedOnlyOfEventsATriggerMatches() {
        module.catalog().put("Trigger", "plugin-exited", new KubeDocument(null, "Trigger", Map.of(), Map.of("operationSet", "plugin-down",
                "sourceTemplate", Map.of("droverEventTemplate", Map.of("regexp", Map.of("tag", "^drover/agent/[^/]+/plugin/[^/]+/exited$"))))));
        online.set(false);
        int before = leadsAsked.get();
        // job returns and other events no trigger names: the leadership (a database round trip in a cluster) is not asked
        for (int i = 0; i < 1_000; i++) {
            bus.publish(new io.drover.model.events.Event(100 + i, "salt/job/1/ret/agent-" + i, null, Map.of("jid", "1", "id", "agent-" + i)));
        }
        // a server that does not lead starts nothing for an event a trigger matches
        leading.set(false);
        bus.publish(new io.drover.model.events.Event(2_000, "drover/agent/agent-1/plugin/exporter/exited", null, Map.of("id", "agent-1")));
        await().atMost(Duration.ofSeconds(5)).until(() -> leadsAsked.get() > before);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .until(() -> module.diagnoses().list(ADMIN, null, 100).isEmpty());
        assertThat(leadsAsked.get() - before).as("asked for the matched event (and at most the periodic checks)").isLessThan(5);
        leading.set(true);
        bus.publish(new io.drover.model.events.Event(2_001, "drover/agent/agent-1/plugin/exporter/exited", null, Map.of("id", "agent-1")));
        await().atMost(Duration.ofSeconds(5)).until(() -> module.diagnoses().list(ADMIN, null, 100).size() == 1);
    }

    @Test
    void aCmdbSelectorNamesEveryHostUnderATopologyNode() {
        var started = module.diagnoses().create(ADMIN, new KubeDocument(null, "Diagnosis", Map.of("name", "all"),
                Map.of("operationSet", "host-overview", "hostSelector", Map.of("bk_biz_id", 3)))).diagnoses();
        assertThat(started).extracting(s -> s.hostName()).containsExactly("db-1");
        assertThat(started.get(0).name()).isEqualTo("all");
        assertThat(module.diagnoses().create(ADMIN, new KubeDocument(null, "Diagnosis", Map.of("name", "both"),
                Map.of("operationSet", "host-overview", "hosts", List.of("web-1"), "hostSelector", Map.of("bk_biz_id", 2)))).diagnoses())
                .extracting(s -> s.hostName()).containsExactly("web-1");
        assertThatThrownBy(() -> module.diagnoses().create(ADMIN, new KubeDocument(null, "Diagnosis", Map.of("name", "none"),
                Map.of("operationSet", "host-overview", "hostSelector", Map.of("bk_biz_id", 9))))).hasMessageContaining("selects no host");
    }
}
