package io.drover.server.subscriptions.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.core.subscriptions.ChangePlanner;
import io.drover.core.subscriptions.ChangePlanner.InstancePlan;
import io.drover.core.subscriptions.ChangePlanner.StepAction;
import io.drover.core.subscriptions.Reason;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.model.Json;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.inventory.Host;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.jobs.AgentCalls.Outcome;
import io.drover.server.store.Database;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.subscriptions.planning.ChangePlanBuilder;
import io.drover.server.subscriptions.SubscriptionStore;
import io.drover.server.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import io.drover.server.cluster.WorkLeaseStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler, instance runner and step executor against fake agents and a real database: what a
 * task records when agents succeed, fail, do not answer or are missing, when batches stop on failures, on revoke,
 * and when the server stops in the middle of a step. Runs on SQLite and on the real PostgreSQL (the two subclasses).
 */
abstract class TaskSchedulerContract {
    static final String SHA = "b".repeat(64);
    static final PackageMetadata EXPORTER = PackageMetadata.fromYaml("""
            name: exporter
            version: 1.0.0
            category: external
            os: [linux]
            cpu_arch: [x86_64]
            control: {start: ./bin/start.sh, stop: ./bin/stop.sh}
            config_templates: [{name: exporter.yaml, path: etc, source: templates/exporter.yaml.j2}]
            """.getBytes(StandardCharsets.UTF_8));

    final FakeAgentCalls agents = new FakeAgentCalls();
    TestDatabases.Target target;
    Database db;
    TaskStore tasks;
    DeploymentStore deployments;
    TaskScheduler scheduler;
    long subscriptionId;

    abstract TestDatabases.Target target();

    @BeforeEach
    void open() throws Exception {
        target = target();
        db = target.open();
        tasks = new TaskStore(db.jdbi(), new EventStore(db.jdbi(), new EventBus(), Clock.systemUTC()), Clock.systemUTC());
        deployments = new DeploymentStore(db.jdbi(), Clock.systemUTC());
        scheduler = new TaskScheduler(tasks, agents, deployments, 10, new WorkLeaseStore(db.jdbi(), Clock.systemUTC(), true), Clock.systemUTC());
        subscriptionId = new SubscriptionStore(db.jdbi(), Clock.systemUTC()).create(spec(null, null)).id();
    }

    @AfterEach
    void close() {
        scheduler.close();
        db.close();
        target.drop().run();
    }

    static SubscriptionSpec spec(Integer batchSize, Double maxFailureRatio) throws Exception {
        return Json.yaml().readValue("""
                name: exporters
                scope: {bk_biz_id: 2, object_type: HOST, node_type: INSTANCE, nodes: [{bk_host_id: 1}]}
                steps: [{id: exporter, type: PLUGIN, config: {plugin_name: exporter}}]
                """ + (batchSize == null ? "" : "batch_size: " + batchSize + "\n")
                + (maxFailureRatio == null ? "" : "max_failure_ratio: " + maxFailureRatio + "\n"), SubscriptionSpec.class);
    }

    /** An INSTALL of the exporter on hosts 1..n, each with agent a<n> unless {@code withoutAgent} names the host. */
    ChangePlanBuilder.Prepared install(int hosts, SubscriptionSpec spec, long... withoutAgent) {
        OffsetDateTime now = OffsetDateTime.now();
        SubscriptionInfo sub = new SubscriptionInfo(subscriptionId, spec.name(), 2, "HOST", "INSTANCE", true, spec, now, now);
        PackageInfo pkg = new PackageInfo("exporter", "1.0.0", "external", null, SHA, 1, "upload", now,
                "packages/exporter/exporter-1.0.0.tgz", EXPORTER);
        Map<String, ScopeInstance> instances = new LinkedHashMap<>();
        Map<String, Map<String, String>> rendered = new LinkedHashMap<>();
        Map<Long, String> agentIds = new LinkedHashMap<>();
        Map<Long, Host> hostMap = new LinkedHashMap<>();
        List<InstancePlan> plans = new ArrayList<>();
        for (long h = 1; h <= hosts; h++) {
            Host host = new Host(h, 2L, "10.0.0." + h, 0L, "h" + h, "linux", "x86_64", List.of(21L), Map.of());
            String id = ScopeInstance.hostInstanceId(h);
            String group = "sub_" + subscriptionId + "_host_" + h;
            instances.put(id, new ScopeInstance(id, group, host, null, List.of(h)));
            rendered.put(id, Map.of("usr/local/gse/external_plugins/" + group + "/exporter/etc/exporter.yaml", "host: h" + h + "\n"));
            hostMap.put(h, host);
            long hostId = h;
            if (java.util.Arrays.stream(withoutAgent).noneMatch(x -> x == hostId)) {
                agentIds.put(h, "a" + h);
            }
            plans.add(new InstancePlan(id, List.of(new StepAction("exporter", ChangeAction.INSTALL, Reason.NEW_INSTALL, null))));
        }
        return new ChangePlanBuilder.Prepared(sub, new ChangePlanner.Plan(plans, Map.of(ChangeAction.INSTALL, hosts)), instances,
                (instance, stepId) -> io.drover.core.subscriptions.StepFiles.plain(rendered.get(instance.instanceId())),
                Map.of("exporter", new ChangePlanBuilder.StepPackage(spec.steps().getFirst(), pkg, Map.of())), agentIds, List.of(),
                List.of(), hostMap, java.util.Set.of(2L));
    }

    TaskInfo finished(long task) {
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.get(task, false).status().finished());
        return scheduler.get(task, true);
    }

    static TaskInfo.TaskInstance instance(TaskInfo task, long host) {
        return task.instances().stream().filter(i -> i.instanceId().equals(ScopeInstance.hostInstanceId(host))).findFirst()
                .orElseThrow();
    }

    @Test
    void aSuccessfulRunInstallsEachInstanceRecordsEverySubStepAndTheDeployedCopies() throws Exception {
        long task = scheduler.start(install(3, spec(null, null)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        TaskInfo done = finished(task);
        assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(done.counts()).containsEntry("SUCCESS", 3);
        assertThat(agents.funs("a1")).containsExactly("file.write", "plugin.install_package", "file.write", "proc.register",
                "proc.operate", "proc.operate");
        TaskInfo.StepRecord step = instance(done, 2).steps().getFirst();
        assertThat(step.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(step.subSteps()).extracting(TaskInfo.SubStep::name).containsExactly("push package", "install package",
                "push config usr/local/gse/external_plugins/sub_" + subscriptionId + "_host_2/exporter/etc/exporter.yaml",
                "register process", "query process", "restart process");
        assertThat(step.subSteps()).allSatisfy(s -> assertThat(s.status()).isEqualTo(RunStatus.SUCCEEDED));
        assertThat(deployments.of(subscriptionId)).hasSize(3).allSatisfy(r -> assertThat(r.status().name()).isEqualTo("RUNNING"));
    }

    @Test
    void aTasksAgentCallsAreLimitedToTheBusinessesItsPlanActsIn() throws Exception {
        // the calls go out as a principal of business 2 only: JobService then refuses any agent outside it
        long task = scheduler.start(install(2, spec(null, null)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        assertThat(finished(task).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(agents.calls).isNotEmpty();
        assertThat(agents.businesses).hasSize(2).containsOnly(java.util.Set.of(2L));
    }

    @Test
    void anAgentErrorFailsOnlyItsInstanceNamingTheSubStepAndTheAgentsWords() throws Exception {
        agents.when("a2", "plugin.install_package", (a, c) -> new Outcome<>(false, null, "j42", "no space left on device"));
        long task = scheduler.start(install(3, spec(null, null)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        TaskInfo done = finished(task);
        assertThat(done.status()).isEqualTo(RunStatus.FAILED);
        assertThat(instance(done, 2).status()).isEqualTo(RunStatus.FAILED);
        assertThat(instance(done, 2).error()).isEqualTo("step exporter, install package: job j42: no space left on device");
        assertThat(instance(done, 1).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(instance(done, 3).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(agents.funs("a2")).doesNotContain("proc.register");
        assertThat(deployments.of(subscriptionId)).extracting(DeploymentStore.Row::hostId).containsExactlyInAnyOrder(1L, 3L);
    }

    @Test
    void anAgentThatDoesNotAnswerAndAHostWithoutAgentFailTheirInstancesSayingSo() throws Exception {
        agents.when("a1", "file.write", (a, c) -> new Outcome<>(false, null, "j7",
                "agent a1 did not answer file.write within 6 s (job j7)"));
        long task = scheduler.start(install(3, spec(null, null), 3), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        TaskInfo done = finished(task);
        assertThat(instance(done, 1).error()).contains("push package").contains("did not answer file.write within 6 s");
        assertThat(instance(done, 3).error()).isEqualTo("host 3 has no agent");
        assertThat(instance(done, 2).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(agents.funs("a3")).isEmpty();
    }

    @Test
    void rollingBatchesStopOnceTheFailedShareExceedsMaxFailureRatio() throws Exception {
        agents.when("a1", "plugin.install_package", (a, c) -> new Outcome<>(false, null, "j1", "corrupt archive"));
        long task = scheduler.start(install(3, spec(1, 0.0)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        TaskInfo done = finished(task);
        assertThat(instance(done, 1).status()).isEqualTo(RunStatus.FAILED);
        assertThat(List.of(instance(done, 2), instance(done, 3))).allSatisfy(i -> {
            assertThat(i.status()).isEqualTo(RunStatus.SKIPPED);
            assertThat(i.error()).isEqualTo("skipped: 1 of 1 instances failed, above max_failure_ratio 0.0");
        });
        assertThat(agents.funs("a2")).isEmpty();
    }

    @Test
    void revokeLetsTheRunningStepFinishAndRevokesWhatHasNotStarted() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        agents.when("a1", "plugin.install_package", (a, c) -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Outcome<>(true, new io.drover.model.agentapi.AgentResult.PackageInstalled("x", 1, SHA), "j", "ok");
        });
        long task = scheduler.start(install(3, spec(1, null)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> inside.getCount() == 0);
        scheduler.revoke(task);
        release.countDown();
        TaskInfo done = finished(task);
        assertThat(done.status()).isEqualTo(RunStatus.REVOKED);
        assertThat(instance(done, 1).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(instance(done, 2).status()).isEqualTo(RunStatus.REVOKED);
        assertThat(instance(done, 3).status()).isEqualTo(RunStatus.REVOKED);
        assertThat(agents.funs("a2")).isEmpty();
    }

    /** A scheduler whose first instance's package install never answers: the test stops it there. */
    long startAndStopInTheMiddleOfAStep() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        agents.when("a1", "plugin.install_package", (a, c) -> {
            inside.countDown();
            try {
                new CountDownLatch(1).await(); // an agent that never answers: only the stop ends the wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Outcome<>(false, null, "j", "interrupted");
        });
        long task = scheduler.start(install(3, spec(1, null)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> inside.getCount() == 0);
        scheduler.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.calls.size() == 2);
        assertThat(scheduler.get(task, true).status()).isEqualTo(RunStatus.RUNNING);
        return task;
    }

    TaskInfo finished(TaskScheduler on, long task) {
        await().atMost(Duration.ofSeconds(10)).until(() -> on.get(task, false).status().finished());
        return on.get(task, true);
    }

    @Test
    void aTaskCutOffByAServerStopIsContinuedByTheNextStartAndNoAgentCallRunsTwice() throws Exception {
        long task = startAndStopInTheMiddleOfAStep();
        List<TaskInfo.SubStep> before = instance(scheduler.get(task, true), 1).steps().getFirst().subSteps();
        assertThat(before).extracting(TaskInfo.SubStep::name).containsExactly("push package", "install package");
        assertThat(before).extracting(TaskInfo.SubStep::status).containsExactly(RunStatus.SUCCEEDED, RunStatus.RUNNING);
        String installJid = before.getLast().jid();

        TaskScheduler restarted = new TaskScheduler(tasks, agents, deployments, 10, new WorkLeaseStore(db.jdbi(), Clock.systemUTC(), true), Clock.systemUTC());
        try {
            assertThat(restarted.takeOver(true, (sub, trigger) -> {
                assertThat(sub).isEqualTo(subscriptionId);
                assertThat(trigger).isEqualTo("create");
                try {
                    return new TaskScheduler.Resumption(install(3, spec(1, null)), null);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            })).isEqualTo(1);
            TaskInfo done = finished(restarted, task);
            assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(done.instances()).extracting(TaskInfo.TaskInstance::status).containsOnly(RunStatus.SUCCEEDED);
            assertThat(done.toString()).doesNotContain("RUNNING", "PENDING");
            // the sub-steps recorded before the stop are answered under their job ids (the stored return, or the
            // agent's answer to the same job), not sent as new calls
            assertThat(agents.resumed).containsExactly(before.getFirst().jid(), installJid);
            for (String agent : List.of("a1", "a2", "a3")) {
                assertThat(agents.calls).filteredOn(c -> c.agentId().equals(agent)).as(agent + ": every agent call once")
                        .doesNotHaveDuplicates().extracting(FakeAgentCalls.Call::fun).contains("file.write", "plugin.install_package");
            }
            TaskInfo.StepRecord step = instance(done, 1).steps().getFirst();
            assertThat(step.subSteps()).extracting(TaskInfo.SubStep::name).doesNotHaveDuplicates();
            assertThat(step.subSteps()).filteredOn(sub -> sub.name().equals("install package")).singleElement()
                    .satisfies(sub -> {
                        assertThat(sub.jid()).isEqualTo(installJid);
                        assertThat(sub.status()).isEqualTo(RunStatus.SUCCEEDED);
                    });
            assertThat(step.subSteps()).allSatisfy(sub -> assertThat(sub.jid()).isNotNull());
        } finally {
            restarted.close();
        }
    }

    @Test
    void aTaskThatCannotBeContinuedIsFailedWithItsReasonAndNothingStaysRunning() throws Exception {
        long task = startAndStopInTheMiddleOfAStep();
        TaskScheduler restarted = new TaskScheduler(tasks, agents, deployments, 10, new WorkLeaseStore(db.jdbi(), Clock.systemUTC(), true), Clock.systemUTC());
        try {
            assertThat(restarted.takeOver(true, (sub, trigger) -> {
                throw new IllegalStateException("subscription " + sub + " is gone");
            })).isEqualTo(1);
            TaskInfo done = restarted.get(task, true);
            assertThat(done.status()).isEqualTo(RunStatus.FAILED);
            assertThat(done.error()).isEqualTo("interrupted by a server stop");
            String why = "the server running the task stopped, and the task could not be continued: subscription "
                    + subscriptionId + " is gone";
            assertThat(done.instances()).allSatisfy(i -> {
                assertThat(i.status()).isEqualTo(RunStatus.FAILED);
                assertThat(i.error()).isEqualTo(why);
                assertThat(i.steps()).allSatisfy(s -> {
                    assertThat(s.status().finished()).isTrue();
                    assertThat(s.subSteps()).allSatisfy(sub -> assertThat(sub.status().finished()).isTrue());
                });
            });
            assertThat(instance(done, 1).steps().getFirst().subSteps().getLast().log()).last().asString().isEqualTo(why);
        } finally {
            restarted.close();
        }
    }

    @Test
    void aStepThatCannotBeRenderedFailsItsInstanceWithoutCallingTheAgent() throws Exception {
        ChangePlanBuilder.Prepared p = install(1, spec(null, null));
        ChangePlanBuilder.Prepared failing = new ChangePlanBuilder.Prepared(p.subscription(), new ChangePlanner.Plan(List.of(new InstancePlan(
                ScopeInstance.hostInstanceId(1), List.of(new StepAction("exporter", ChangeAction.FAIL, Reason.RENDER_FAILED,
                "template etc/exporter.yaml, line 2: 'port' is undefined")))), Map.of()), p.instances(), p.files(),
                p.packages(), p.agents(), p.deployed(), p.missing(), p.hosts(), p.businesses());
        TaskInfo done = finished(scheduler.start(failing, "run", "alice", TaskScheduler.Selection.ALL).orElseThrow());
        assertThat(instance(done, 1).status()).isEqualTo(RunStatus.FAILED);
        assertThat(instance(done, 1).error()).contains("'port' is undefined");
        assertThat(agents.calls).isEmpty();
    }

    @Test
    void theCallsAreTypedRecordsOfTheContract() throws Exception {
        finished(scheduler.start(install(1, spec(null, null)), "create", "alice", TaskScheduler.Selection.ALL).orElseThrow());
        assertThat(agents.calls.get(1).call()).isEqualTo(new AgentCall.InstallPackage("packages/exporter/exporter-1.0.0.tgz",
                SHA, "usr/local/gse/external_plugins/sub_" + subscriptionId + "_host_1/exporter"));
    }
}
