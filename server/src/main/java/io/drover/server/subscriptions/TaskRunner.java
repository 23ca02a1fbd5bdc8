package io.drover.server.subscriptions;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.Action;
import io.drover.core.subscriptions.InstanceRenderer;
import io.drover.core.subscriptions.Planner.InstancePlan;
import io.drover.core.subscriptions.Planner.StepAction;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.model.subscriptions.TaskInfo.SubStep;
import io.drover.server.events.EventStore;
import io.drover.server.http.ApiException;
import io.drover.server.store.Sql;
import io.drover.server.jobs.AgentCalls;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs plans as tasks (DESIGN.md §8): one task per run and subscription at a time; an instance record per instance
 * with its steps and sub-steps, written as they change; bounded concurrency; rolling batches that stop when the
 * failure ratio exceeds {@code max_failure_ratio}; revoke. A task interrupted by a server stop is failed on the next
 * start with that reason: nothing stays RUNNING.
 */
public final class TaskRunner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TaskRunner.class);
    private static final TypeReference<List<StepRecord>> STEPS = new TypeReference<>() {
    };

    private final Jdbi jdbi;
    private final Pipelines pipelines;
    private final EventStore events;
    private final Semaphore slots;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<Long, AtomicBoolean> revoked = new ConcurrentHashMap<>();
    private final Map<Long, java.util.function.Consumer<String>> finished = new ConcurrentHashMap<>();
    private final InstanceRenderer renderer = new InstanceRenderer(new TemplateRenderer());

    public TaskRunner(Jdbi jdbi, AgentCalls jobs, Deployments deployments, EventStore events, int concurrency) {
        this.jdbi = jdbi;
        this.pipelines = new Pipelines(jobs, deployments);
        this.events = events;
        this.slots = new Semaphore(concurrency);
    }

    /** Which instances (null: all) and, optionally, which actions to force per step (a partial run). */
    public record Selection(Set<String> instanceIds, Map<String, Action> forcedActions) {
        public static final Selection ALL = new Selection(null, Map.of());
    }

    /**
     * Starts a task for the plan's changes; empty when there is nothing to do (an inspection leaves no task behind).
     * 409 while another task of the subscription is running.
     */
    public Optional<Long> start(PlanBuilder.Prepared p, String trigger, String actor, Selection selection) {
        return start(p, trigger, actor, selection, null);
    }

    /** As {@link #start(PlanBuilder.Prepared, String, String, Selection)}, then {@code then} with the final status. */
    public synchronized Optional<Long> start(PlanBuilder.Prepared p, String trigger, String actor, Selection selection,
                                             java.util.function.Consumer<String> then) {
        long sub = p.subscription().id();
        if (selection.instanceIds() != null) {
            Set<String> known = new java.util.HashSet<>();
            p.plan().instances().forEach(ip -> known.add(ip.instanceId()));
            List<String> unknown = selection.instanceIds().stream().filter(id -> !known.contains(id)).sorted().toList();
            if (!unknown.isEmpty()) {
                throw ApiException.invalid("instance_ids", unknown.size() + " unknown to subscription " + sub + ": "
                        + String.join(", ", unknown.subList(0, Math.min(20, unknown.size())))
                        + (unknown.size() > 20 ? ", …" : "") + " (its instances: GET /subscriptions/" + sub + "/instances)");
            }
        }
        List<InstancePlan> work = new ArrayList<>();
        for (InstancePlan ip : p.plan().instances()) {
            if (selection.instanceIds() != null && !selection.instanceIds().contains(ip.instanceId())) {
                continue;
            }
            InstancePlan forced = force(ip, selection.forcedActions());
            if (forced.changes() || forced.steps().stream().anyMatch(s -> s.action() == Action.FAIL)) {
                work.add(forced);
            }
        }
        if (work.isEmpty()) {
            return Optional.empty();
        }
        if (runningTask(sub).isPresent()) {
            throw ApiException.conflict("task_running", "subscription " + sub + " has task " + runningTask(sub).get()
                    + " running; wait for it, or revoke it");
        }
        OffsetDateTime now = Sql.now();
        long taskId = jdbi.inTransaction(h -> {
            long id = h.createUpdate("""
                            INSERT INTO task (subscription_id, status, trigger_kind, actor, created_at, started_at)
                            VALUES (:sub, 'RUNNING', :trigger, :actor, :now, :now)""")
                    .bind("sub", sub).bind("trigger", trigger).bind("actor", actor).bind("now", now)
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
            for (InstancePlan ip : work) {
                ScopeInstance instance = p.instances().get(ip.instanceId());
                h.createUpdate("""
                                INSERT INTO task_instance (task_id, instance_id, bk_host_id, status, steps)
                                VALUES (:task, :instance, :host, 'PENDING', :steps)""")
                        .bind("task", id).bind("instance", ip.instanceId())
                        .bind("host", instance == null ? hostOf(p, ip.instanceId()) : instance.host().bkHostId())
                        .bind("steps", Sql.toJson(planned(ip))).execute();
            }
            events.append(h, "drover/subscription/" + sub + "/task/" + id + "/started", Map.of("trigger", trigger,
                    "instances", work.size()));
            return id;
        });
        events.publishPending();
        revoked.put(taskId, new AtomicBoolean());
        if (then != null) {
            finished.put(taskId, then);
        }
        executor.submit(() -> execute(taskId, p, work));
        return Optional.of(taskId);
    }

    private static Long hostOf(PlanBuilder.Prepared p, String instanceId) {
        return p.deployed().stream().filter(r -> r.instanceId().equals(instanceId)).map(Deployments.Row::hostId).findFirst().orElse(null);
    }

    private static InstancePlan force(InstancePlan ip, Map<String, Action> forced) {
        if (forced.isEmpty()) {
            return ip;
        }
        List<StepAction> steps = new ArrayList<>();
        for (StepAction s : ip.steps()) {
            Action a = forced.get(s.stepId());
            steps.add(a == null ? new StepAction(s.stepId(), Action.NOT_CHANGE, s.reason(), "not selected")
                    : new StepAction(s.stepId(), a, s.reason(), "requested"));
        }
        return new InstancePlan(ip.instanceId(), steps);
    }

    private static List<StepRecord> planned(InstancePlan ip) {
        return ip.steps().stream().map(s -> new StepRecord(s.stepId(), s.action().name(), s.reason().name(),
                s.action().changes() ? "PENDING" : s.action() == Action.FAIL ? "FAILED" : "SKIPPED", List.of())).toList();
    }

    public Optional<Long> runningTask(long subscriptionId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM task WHERE subscription_id = :sub AND status = 'RUNNING'")
                .bind("sub", subscriptionId).mapTo(Long.class).findFirst());
    }

    private void execute(long taskId, PlanBuilder.Prepared p, List<InstancePlan> work) {
        try {
            int batchSize = p.subscription().spec().batchSize() == null ? work.size() : p.subscription().spec().batchSize();
            double maxFailure = p.subscription().spec().maxFailureRatio() == null ? 1.0 : p.subscription().spec().maxFailureRatio();
            AtomicInteger failed = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            for (int from = 0; from < work.size(); from += batchSize) {
                List<InstancePlan> batch = work.subList(from, Math.min(work.size(), from + batchSize));
                if (revoked.get(taskId).get()) {
                    batch.forEach(ip -> finishInstance(taskId, ip.instanceId(), "REVOKED", "the task was revoked", null));
                    continue;
                }
                if (done.get() > 0 && (double) failed.get() / done.get() > maxFailure) {
                    String why = "skipped: " + failed.get() + " of " + done.get() + " instances failed, above max_failure_ratio "
                            + maxFailure;
                    batch.forEach(ip -> finishInstance(taskId, ip.instanceId(), "SKIPPED", why, null));
                    continue;
                }
                List<java.util.concurrent.Future<?>> running = new ArrayList<>();
                for (InstancePlan ip : batch) {
                    running.add(executor.submit(() -> {
                        slots.acquireUninterruptibly();
                        try {
                            if (!runInstance(taskId, p, ip)) {
                                failed.incrementAndGet();
                            }
                        } finally {
                            slots.release();
                            done.incrementAndGet();
                        }
                    }));
                }
                for (var f : running) {
                    f.get();
                }
            }
            finishTask(taskId, null);
        } catch (Exception e) {
            if (stopping(e)) {
                log.info("task {} left unfinished: the server is stopping (its next start fails what did not finish)", taskId);
                return;
            }
            log.error("task {} failed", taskId, e);
            failUnfinished(taskId, "the task failed on the server: " + e.getMessage());
            finishTask(taskId, e.getMessage());
        } finally {
            revoked.remove(taskId);
        }
    }

    /** True when a task's failure comes from the server stopping (its threads interrupted) rather than from the task. */
    private static boolean stopping(Exception e) {
        return e instanceof InterruptedException || e.getCause() instanceof InterruptedException
                || Thread.currentThread().isInterrupted();
    }

    /** Runs one instance's steps in order; stops at the first failure. True when nothing failed. */
    private boolean runInstance(long taskId, PlanBuilder.Prepared p, InstancePlan ip) {
        if (revoked.get(taskId).get()) {
            finishInstance(taskId, ip.instanceId(), "REVOKED", "the task was revoked", null);
            return true;
        }
        List<StepRecord> planned = planned(ip);
        Journal journal = new Journal(planned, steps -> saveSteps(taskId, ip.instanceId(), steps));
        jdbi.useHandle(h -> h.createUpdate("UPDATE task_instance SET status = 'RUNNING', started_at = :now "
                + "WHERE task_id = :task AND instance_id = :instance").bind("now", Sql.now()).bind("task", taskId)
                .bind("instance", ip.instanceId()).execute());
        boolean anyWork = false;
        for (StepAction step : ip.steps()) {
            if (step.action() == Action.FAIL) {
                finishInstance(taskId, ip.instanceId(), "FAILED", step.detail(), journal);
                return false;
            }
            if (!step.action().changes()) {
                continue;
            }
            anyWork = true;
            if (revoked.get(taskId).get()) {
                finishInstance(taskId, ip.instanceId(), "REVOKED", "the task was revoked before step " + step.stepId(), journal);
                return true;
            }
            journal.beginStep(step.stepId());
            String error = runStep(p, ip.instanceId(), step, journal);
            if (error != null && Thread.currentThread().isInterrupted()) {
                // The server is stopping and cut the wait short: the error says nothing about the agent. Leave the
                // instance RUNNING; the next start fails it as interrupted by the stop.
                return false;
            }
            journal.endStep(error == null ? "SUCCESS" : "FAILED");
            if (error != null) {
                ip.steps().stream().dropWhile(s -> s != step).skip(1).filter(s -> s.action().changes())
                        .forEach(s -> journal.markStep(s.stepId(), "SKIPPED"));
                finishInstance(taskId, ip.instanceId(), "FAILED", error, journal);
                return false;
            }
        }
        finishInstance(taskId, ip.instanceId(), anyWork ? "SUCCESS" : "SKIPPED", anyWork ? null : skipReason(ip), journal);
        return true;
    }

    private static String skipReason(InstancePlan ip) {
        return ip.steps().stream().filter(s -> s.action() == Action.SKIP).map(s -> s.stepId() + ": " + s.reason().text()
                + (s.detail() == null ? "" : " (" + s.detail() + ")")).findFirst().orElse(null);
    }

    /** Runs one step on every host it concerns; the error of the first failed sub-step, or null. */
    private String runStep(PlanBuilder.Prepared p, String instanceId, StepAction step, Journal journal) {
        ScopeInstance instance = p.instances().get(instanceId);
        PlanBuilder.StepPackage sp = p.packages().get(step.stepId());
        List<Deployments.Row> existing = p.deployed().stream()
                .filter(r -> r.instanceId().equals(instanceId) && r.stepId().equals(step.stepId())).toList();
        List<Long> hosts = instance != null && step.action() != Action.UNINSTALL ? instance.targetHosts()
                : existing.stream().map(Deployments.Row::hostId).distinct().toList();
        if (sp == null) {
            return "step " + step.stepId() + " is no longer in the subscription and its package is unknown; "
                    + "remove its files by hand";
        }
        for (long host : hosts) {
            String agent = p.agents().get(host);
            if (agent == null) {
                return "host " + host + " has no agent";
            }
            Optional<Deployments.Row> copy = existing.stream().filter(r -> r.hostId() == host).findFirst();
            String groupId = instance != null ? instance.groupId() : copy.map(Deployments.Row::groupId).orElseThrow();
            long biz = instance != null ? instance.host().bkBizId() : copy.map(Deployments.Row::bizId).orElseThrow();
            Map<String, String> files = instance == null ? Map.of()
                    : p.rendered().get(instanceId).get(step.stepId()).files();
            Pipelines.CopyWork work = new Pipelines.CopyWork(p.subscription().id(), instanceId, groupId, host, biz, agent,
                    step.stepId(), sp.pkg(), step.action(), files, copy, port -> rerender(p, instance, step.stepId(), port));
            if (!pipelines.run(work, journal)) {
                return failedSubStep(journal, step.stepId());
            }
        }
        return null;
    }

    private Map<String, String> rerender(PlanBuilder.Prepared p, ScopeInstance instance, String stepId, int port) {
        List<InstanceRenderer.StepInput> inputs = p.packages().values().stream().map(sp -> new InstanceRenderer.StepInput(
                sp.step().id(), sp.pkg().metadata(), sp.templateSources(),
                sp.step().config().configTemplates().stream().map(io.drover.model.subscriptions.SubscriptionSpec.TemplateRef::name).toList(),
                sp.step().params() == null ? Map.of() : sp.step().params().context())).toList();
        Map<String, Integer> ports = new LinkedHashMap<>();
        p.deployed().stream().filter(r -> r.instanceId().equals(instance.instanceId()) && r.port() != null)
                .forEach(r -> ports.put(r.stepId(), r.port()));
        ports.put(stepId, port);
        InstanceRenderer.RenderedStep r = renderer.render(instance, p.subscription().spec().scope(), inputs, ports).get(stepId);
        if (r.error() != null) {
            throw new IllegalStateException(r.error());
        }
        return r.files();
    }

    private static String failedSubStep(Journal journal, String stepId) {
        for (StepRecord s : journal.steps()) {
            if (s.stepId().equals(stepId) && !s.subSteps().isEmpty()) {
                TaskInfo.SubStep last = s.subSteps().getLast();
                return "step " + stepId + ", " + last.name() + ": " + String.join(" ", last.log());
            }
        }
        return "step " + stepId + " failed";
    }

    private void saveSteps(long taskId, String instanceId, List<StepRecord> steps) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE task_instance SET steps = :steps WHERE task_id = :task AND instance_id = :instance")
                .bind("steps", Sql.toJson(steps)).bind("task", taskId).bind("instance", instanceId).execute());
    }

    private void finishInstance(long taskId, String instanceId, String status, String error, Journal journal) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE task_instance SET status = :status, error = :error, finished_at = :now,
                               started_at = COALESCE(started_at, :now)
                        WHERE task_id = :task AND instance_id = :instance""")
                .bind("status", status).bind("error", error).bind("now", Sql.now()).bind("task", taskId)
                .bind("instance", instanceId).execute());
    }

    /** Every unfinished instance, step and sub-step of the task FAILED, the sub-steps' logs saying why. */
    private void failUnfinished(long taskId, String why) {
        var now = Sql.now();
        jdbi.useTransaction(h -> {
            List<Map.Entry<String, List<StepRecord>>> unfinished = h.createQuery("""
                            SELECT instance_id, steps FROM task_instance WHERE task_id = :task AND status IN ('PENDING', 'RUNNING')""")
                    .bind("task", taskId)
                    .map((rs, ctx) -> Map.entry(rs.getString(1), Sql.fromJson(rs.getString(2), STEPS))).list();
            var update = h.prepareBatch("""
                    UPDATE task_instance SET status = 'FAILED', error = :why, finished_at = :now, steps = :steps
                    WHERE task_id = :task AND instance_id = :instance""");
            for (Map.Entry<String, List<StepRecord>> instance : unfinished) {
                update.bind("why", why).bind("now", now).bind("task", taskId).bind("instance", instance.getKey())
                        .bind("steps", Sql.toJson(failed(instance.getValue(), why, now))).add();
            }
            if (!unfinished.isEmpty()) {
                update.execute();
            }
        });
    }

    private static List<StepRecord> failed(List<StepRecord> steps, String why, OffsetDateTime now) {
        return steps.stream().map(step -> new StepRecord(step.stepId(), step.action(), step.reason(),
                unfinished(step.status()) ? "FAILED" : step.status(),
                step.subSteps() == null ? null : step.subSteps().stream().map(sub -> unfinished(sub.status())
                        ? new SubStep(sub.name(), "FAILED", sub.startedAt(), now, appended(sub.log(), why)) : sub).toList())).toList();
    }

    private static boolean unfinished(String status) {
        return "PENDING".equals(status) || "RUNNING".equals(status);
    }

    private static List<String> appended(List<String> log, String line) {
        List<String> out = new ArrayList<>(log == null ? List.of() : log);
        out.add(line);
        return out;
    }

    private void finishTask(long taskId, String error) {
        Map<String, Integer> counts = counts(taskId);
        String status = error != null ? "FAILED" : counts.getOrDefault("FAILED", 0) > 0 ? "FAILED"
                : counts.getOrDefault("REVOKED", 0) > 0 ? "REVOKED" : "SUCCESS";
        long sub = jdbi.inTransaction(h -> {
            h.createUpdate("UPDATE task SET status = :status, finished_at = :now, error = :error WHERE id = :id")
                    .bind("status", status).bind("now", Sql.now()).bind("error", error).bind("id", taskId).execute();
            long s = h.createQuery("SELECT subscription_id FROM task WHERE id = :id").bind("id", taskId).mapTo(Long.class).one();
            events.append(h, "drover/subscription/" + s + "/task/" + taskId + "/finished", Map.of("status", status, "counts", counts));
            return s;
        });
        events.publishPending();
        log.info("subscription {} task {} finished: {} {}", sub, taskId, status, counts);
        java.util.function.Consumer<String> then = finished.remove(taskId);
        if (then != null) {
            then.accept(status);
        }
    }

    /** Marks tasks left RUNNING by a server that stopped: their unfinished instances fail with that reason. */
    public int failInterrupted() {
        List<Long> interrupted = jdbi.withHandle(h -> h.createQuery("SELECT id FROM task WHERE status = 'RUNNING'")
                .mapTo(Long.class).list());
        for (long id : interrupted) {
            failUnfinished(id, "the server stopped during the run; retry to run it again");
            finishTask(id, "interrupted by a server stop");
        }
        return interrupted.size();
    }

    /** Revokes a running task: instances not started are REVOKED, running ones stop after their current sub-step. */
    public void revoke(long taskId) {
        AtomicBoolean flag = revoked.get(taskId);
        if (flag == null) {
            throw ApiException.conflict("task_not_running", "task " + taskId + " is not running");
        }
        flag.set(true);
    }

    public Map<String, Integer> counts(long taskId) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT status, COUNT(*) AS n FROM task_instance WHERE task_id = :task GROUP BY status")
                .bind("task", taskId).map((rs, ctx) -> Map.entry(rs.getString("status"), rs.getInt("n")))
                .forEach(e -> counts.put(e.getKey(), e.getValue())));
        return counts;
    }

    public TaskInfo get(long taskId, boolean withInstances) {
        TaskInfo task = jdbi.withHandle(h -> h.createQuery("SELECT * FROM task WHERE id = :id").bind("id", taskId)
                .map((rs, ctx) -> task(rs, null)).findOne()).orElseThrow(() -> ApiException.notFound("task", taskId));
        Map<String, Integer> counts = counts(taskId);
        List<TaskInfo.TaskInstance> instances = !withInstances ? null : jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM task_instance WHERE task_id = :task ORDER BY instance_id").bind("task", taskId)
                .map((rs, ctx) -> new TaskInfo.TaskInstance(rs.getString("instance_id"), (Long) rs.getObject("bk_host_id"),
                        rs.getString("status"), rs.getString("error"), rs.getObject("started_at", OffsetDateTime.class),
                        rs.getObject("finished_at", OffsetDateTime.class), Sql.fromJson(rs.getString("steps"), STEPS))).list());
        return new TaskInfo(task.id(), task.subscriptionId(), task.status(), task.trigger(), task.actor(), task.createdAt(),
                task.startedAt(), task.finishedAt(), task.error(), counts, instances);
    }

    public List<TaskInfo> list(long subscriptionId) {
        List<Long> ids = jdbi.withHandle(h -> h.createQuery("SELECT id FROM task WHERE subscription_id = :sub ORDER BY id DESC")
                .bind("sub", subscriptionId).mapTo(Long.class).list());
        return ids.stream().map(id -> get(id, false)).toList();
    }

    /** The instances of the subscription's latest task that failed. */
    public List<String> failedInstances(long subscriptionId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT ti.instance_id FROM task_instance ti
                        WHERE ti.task_id = (SELECT MAX(id) FROM task WHERE subscription_id = :sub) AND ti.status = 'FAILED'""")
                .bind("sub", subscriptionId).mapTo(String.class).list());
    }

    private static TaskInfo task(ResultSet rs, List<TaskInfo.TaskInstance> instances) throws SQLException {
        return new TaskInfo(rs.getLong("id"), rs.getLong("subscription_id"), rs.getString("status"), rs.getString("trigger_kind"),
                rs.getString("actor"), rs.getObject("created_at", OffsetDateTime.class),
                rs.getObject("started_at", OffsetDateTime.class), rs.getObject("finished_at", OffsetDateTime.class),
                rs.getString("error"), Map.of(), instances);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
