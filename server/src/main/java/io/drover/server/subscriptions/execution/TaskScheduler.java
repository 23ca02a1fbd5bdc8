package io.drover.server.subscriptions.execution;

import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.InstanceRenderer;
import io.drover.core.subscriptions.ChangePlanner.InstancePlan;
import io.drover.core.subscriptions.ChangePlanner.StepAction;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.server.errors.DomainException;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.subscriptions.planning.ChangePlanBuilder;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import io.drover.core.subscriptions.Reason;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.server.cluster.WorkLeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the runs of subscriptions (docs/architecture.md): one task per subscription at a time; rolling batches that
 * stop when the failed share exceeds {@code max_failure_ratio}; at most {@code concurrency} instances in flight;
 * revoke. Each instance is run by {@link InstanceRunner}, each of its steps by {@link StepExecutor}. A task cut off
 * by a server stop is taken over (by the next start, or by another server of the cluster once its lease ran out) and
 * continued from its record: no step runs twice on an agent.
 */
public final class TaskScheduler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TaskScheduler.class);

    /** Which instances (null: all) and, optionally, which actions to force per step (a partial run). */
    public record Selection(Set<String> instanceIds, Map<String, ChangeAction> forcedActions) {
        public static final Selection ALL = new Selection(null, Map.of());
    }

    /** What continuing a task taken over needs: its subscription's plan prepared again, and what to do once it ends. */
    public record Resumption(ChangePlanBuilder.Prepared prepared, Consumer<RunStatus> then) {
    }

    private final TaskStore tasks;
    private final WorkLeaseStore leases;
    private final InstanceRunner instances;
    private final Semaphore slots;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<Long, AtomicBoolean> revoked = new ConcurrentHashMap<>();
    private final Map<Long, Consumer<RunStatus>> finished = new ConcurrentHashMap<>();

    public TaskScheduler(TaskStore tasks, AgentCalls agents, DeploymentStore deployments, int concurrency,
                         WorkLeaseStore leases, Clock clock) {
        this.tasks = tasks;
        this.leases = leases;
        this.instances = new InstanceRunner(tasks, new StepExecutor(new Pipelines(deployments,
                new InstanceRenderer(new TemplateRenderer()))), agents, clock);
        this.slots = new Semaphore(concurrency);
    }

    /**
     * Starts a task for the plan's changes; empty when there is nothing to do (an inspection leaves no task behind).
     * 409 while another task of the subscription is running.
     */
    public Optional<Long> start(ChangePlanBuilder.Prepared p, String trigger, String actor, Selection selection) {
        return start(p, trigger, actor, selection, null);
    }

    /** As {@link #start(ChangePlanBuilder.Prepared, String, String, Selection)}, then {@code then} with the final status. */
    public synchronized Optional<Long> start(ChangePlanBuilder.Prepared p, String trigger, String actor, Selection selection,
                                             Consumer<RunStatus> then) {
        long sub = p.subscription().id();
        if (selection.instanceIds() != null) {
            Set<String> known = new HashSet<>();
            p.plan().instances().forEach(ip -> known.add(ip.instanceId()));
            List<String> unknown = selection.instanceIds().stream().filter(id -> !known.contains(id)).sorted().toList();
            if (!unknown.isEmpty()) {
                throw DomainException.invalid("instance_ids", unknown.size() + " unknown to subscription " + sub + ": "
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
            if (forced.changes() || forced.steps().stream().anyMatch(s -> s.action() == ChangeAction.FAIL)) {
                work.add(forced);
            }
        }
        if (work.isEmpty()) {
            return Optional.empty();
        }
        Optional<Long> running = tasks.runningTask(sub);
        if (running.isPresent()) {
            throw DomainException.conflict("task_running", "subscription " + sub + " has task " + running.get()
                    + " running; wait for it, or revoke it");
        }
        long taskId = tasks.create(sub, trigger, actor, work.stream().map(ip -> new TaskStore.NewInstance(
                ip.instanceId(), hostOf(p, ip.instanceId()), InstanceRunner.planned(ip))).toList());
        leases.own(WorkLeaseStore.Work.TASK, taskId);
        revoked.put(taskId, new AtomicBoolean());
        if (then != null) {
            finished.put(taskId, then);
        }
        executor.submit(() -> execute(taskId, p, work, Map.of(), 0, 0));
        return Optional.of(taskId);
    }

    private static Long hostOf(ChangePlanBuilder.Prepared p, String instanceId) {
        ScopeInstance instance = p.instances().get(instanceId);
        if (instance != null) {
            return instance.host().bkHostId();
        }
        return p.deployed().stream().filter(r -> r.instanceId().equals(instanceId)).map(DeploymentStore.Row::hostId)
                .findFirst().orElse(null);
    }

    private static InstancePlan force(InstancePlan ip, Map<String, ChangeAction> forced) {
        if (forced.isEmpty()) {
            return ip;
        }
        List<StepAction> steps = new ArrayList<>();
        for (StepAction s : ip.steps()) {
            ChangeAction a = forced.get(s.stepId());
            steps.add(a == null ? new StepAction(s.stepId(), ChangeAction.NOT_CHANGE, s.reason(), "not selected")
                    : new StepAction(s.stepId(), a, s.reason(), "requested"));
        }
        return new InstancePlan(ip.instanceId(), steps);
    }

    public Optional<Long> runningTask(long subscriptionId) {
        return tasks.runningTask(subscriptionId);
    }

    /**
     * Runs the task's instances in batches. {@code recorded}: the steps of instances a stopped server left running;
     * {@code failedBefore} of {@code doneBefore} instances ended before a takeover.
     */
    private void execute(long taskId, ChangePlanBuilder.Prepared p, List<InstancePlan> work, Map<String, List<StepRecord>> recorded,
                         int failedBefore, int doneBefore) {
        AtomicBoolean revokedFlag = revoked.get(taskId);
        try {
            int batchSize = p.subscription().spec().batchSize() == null ? Math.max(1, work.size()) : p.subscription().spec().batchSize();
            double maxFailure = p.subscription().spec().maxFailureRatio() == null ? 1.0 : p.subscription().spec().maxFailureRatio();
            AtomicInteger failed = new AtomicInteger(failedBefore);
            AtomicInteger done = new AtomicInteger(doneBefore);
            for (int from = 0; from < work.size(); from += batchSize) {
                List<InstancePlan> batch = work.subList(from, Math.min(work.size(), from + batchSize));
                if (revokedFlag.get()) {
                    batch.forEach(ip -> tasks.finishInstance(taskId, ip.instanceId(), RunStatus.REVOKED, "the task was revoked"));
                    continue;
                }
                if (done.get() > 0 && (double) failed.get() / done.get() > maxFailure) {
                    String why = "skipped: " + failed.get() + " of " + done.get() + " instances failed, above max_failure_ratio "
                            + maxFailure;
                    batch.forEach(ip -> tasks.finishInstance(taskId, ip.instanceId(), RunStatus.SKIPPED, why));
                    continue;
                }
                List<Future<?>> running = new ArrayList<>();
                for (InstancePlan ip : batch) {
                    running.add(executor.submit(() -> {
                        slots.acquireUninterruptibly();
                        try {
                            if (!instances.run(taskId, p, ip, recorded.get(ip.instanceId()), revokedFlag::get)) {
                                failed.incrementAndGet();
                            }
                        } finally {
                            slots.release();
                            done.incrementAndGet();
                        }
                    }));
                }
                for (Future<?> f : running) {
                    f.get();
                }
            }
            if (Thread.currentThread().isInterrupted() || executor.isShutdown()) {
                // The stop reached this thread after the last instance gave up (or is about to: a stop marks the
                // executor shut down before it interrupts its threads): the task is not finished, and an instance
                // cut off is not a success. The next start fails what it left.
                log.info("task {} left unfinished: the server is stopping (it is continued by the next start or another server)", taskId);
                return;
            }
            finish(taskId, null);
        } catch (Exception e) {
            if (stopping(e)) {
                log.info("task {} left unfinished: the server is stopping (it is continued by the next start or another server)", taskId);
                return;
            }
            log.error("task {} failed", taskId, e);
            tasks.failUnfinished(taskId, "the task failed on the server: " + e.getMessage());
            finish(taskId, e.getMessage());
        } finally {
            revoked.remove(taskId);
        }
    }

    /** True when a task's failure comes from the server stopping (its threads interrupted) rather than from the task. */
    private static boolean stopping(Exception e) {
        return e instanceof InterruptedException || e.getCause() instanceof InterruptedException
                || Thread.currentThread().isInterrupted();
    }

    private void finish(long taskId, String error) {
        Map<String, Integer> counts = tasks.counts(taskId);
        RunStatus status = error != null || counts.getOrDefault(RunStatus.FAILED.wire(), 0) > 0 ? RunStatus.FAILED
                : counts.getOrDefault(RunStatus.REVOKED.wire(), 0) > 0 ? RunStatus.REVOKED : RunStatus.SUCCEEDED;
        long sub = tasks.finish(taskId, status, error, counts);
        log.info("subscription {} task {} finished: {} {}", sub, taskId, status.wire(), counts);
        Consumer<RunStatus> then = finished.remove(taskId);
        if (then != null) {
            then.accept(status);
        }
    }

    /**
     * Takes over the tasks left RUNNING by a server that stopped (this one before a restart, or another of the
     * cluster whose lease ran out) and continues them: instances that ended stay as they are, the others go on from
     * their record with the plan {@code prepare} gives for the task's subscription and trigger. A task whose plan
     * cannot be prepared (its subscription is gone, say) fails its unfinished instances with the reason.
     */
    public int takeOver(boolean atStart, BiFunction<Long, String, Resumption> prepare) {
        List<Long> claimed = leases.claimAbandoned(WorkLeaseStore.Work.TASK, atStart);
        for (long id : claimed) {
            TaskInfo task = tasks.get(id, true).orElseThrow();
            Resumption resumption;
            try {
                resumption = prepare.apply(task.subscriptionId(), task.trigger());
            } catch (RuntimeException e) {
                log.warn("task {} of a stopped server cannot be continued: {}", id, e.getMessage());
                tasks.failUnfinished(id, "the server running the task stopped, and the task could not be continued: "
                        + e.getMessage());
                finish(id, "interrupted by a server stop");
                continue;
            }
            resume(task, resumption);
        }
        return claimed.size();
    }

    private synchronized void resume(TaskInfo task, Resumption resumption) {
        List<InstancePlan> work = new ArrayList<>();
        Map<String, List<StepRecord>> recorded = new HashMap<>();
        int failed = 0;
        int done = 0;
        for (TaskInfo.TaskInstance i : task.instances()) {
            if (i.status().finished()) {
                done++;
                failed += i.status() == RunStatus.FAILED ? 1 : 0;
                continue;
            }
            work.add(new InstancePlan(i.instanceId(), i.steps().stream().map(s -> new StepAction(s.stepId(),
                    s.action(), Reason.valueOf(s.reason()), null)).toList()));
            if (i.status() == RunStatus.RUNNING) {
                recorded.put(i.instanceId(), i.steps());
            }
        }
        log.info("continuing task {} of subscription {} taken over from a stopped server: {} instance(s) left, {} ended",
                task.id(), task.subscriptionId(), work.size(), done);
        revoked.put(task.id(), new AtomicBoolean());
        if (resumption.then() != null) {
            finished.put(task.id(), resumption.then());
        }
        int failedBefore = failed;
        int doneBefore = done;
        executor.submit(() -> execute(task.id(), resumption.prepared(), work, recorded, failedBefore, doneBefore));
    }

    /** Revokes a running task: instances not started are REVOKED, running ones stop after their current step. */
    public void revoke(long taskId) {
        AtomicBoolean flag = revoked.get(taskId);
        if (flag == null) {
            throw DomainException.conflict("task_not_running", "task " + taskId + " is not running");
        }
        flag.set(true);
    }

    public TaskInfo get(long taskId, boolean withInstances) {
        return tasks.get(taskId, withInstances).orElseThrow(() -> DomainException.notFound("task", taskId));
    }

    public List<TaskInfo> list(long subscriptionId) {
        return tasks.ids(subscriptionId).stream().map(id -> get(id, false)).toList();
    }

    /** Instance id → the last task of the subscription that touched it. */
    public Map<String, TaskStore.LastTask> lastTaskOfInstances(long subscriptionId) {
        return tasks.lastTaskOfInstances(subscriptionId);
    }

    /** The instances of the subscription's latest task that failed. */
    public List<String> failedInstances(long subscriptionId) {
        return tasks.failedInstances(subscriptionId);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
