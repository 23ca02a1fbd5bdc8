package io.drover.server.subscriptions;

import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.CopyStatus;
import io.drover.model.subscriptions.InstanceState;
import io.drover.server.subscriptions.planning.ChangePlanBuilder;
import io.drover.core.subscriptions.ChangePlanner;
import io.drover.core.subscriptions.Reason;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.model.inventory.Host;
import io.drover.model.subscriptions.InstanceStatus;
import io.drover.model.subscriptions.ChangePlanView;
import io.drover.model.subscriptions.RunRequest;
import io.drover.model.subscriptions.HostPlugin;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionStarted;
import io.drover.model.subscriptions.SubscriptionStatistics;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.model.subscriptions.RunStatus;
import io.drover.server.subscriptions.execution.TaskStore;
import io.drover.server.subscriptions.execution.TaskScheduler;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** Subscription operations as the API and CLI offer them; every change plans and runs at once. */
public final class SubscriptionService {

    private final SubscriptionStore store;
    private final ChangePlanBuilder planner;
    private final TaskScheduler runner;
    private final DeploymentStore deployments;
    private final ScopeObjects objects;

    public SubscriptionService(SubscriptionStore store, ChangePlanBuilder planner, TaskScheduler runner, DeploymentStore deployments,
                               ScopeObjects objects) {
        this.store = store;
        this.objects = objects;
        this.planner = planner;
        this.runner = runner;
        this.deployments = deployments;
    }

    /**
     * A body from a caller: well formed, and every business, node, host, service instance and target it names is in
     * a business the token covers and in the subscription's own business.
     */
    private void check(Principal p, SubscriptionSpec spec) {
        SubscriptionStore.validate(spec);
        objects.check(p, spec);
    }

    public SubscriptionStarted create(Principal p, SubscriptionSpec spec) {
        check(p, spec);
        Map<String, ChangePlanBuilder.StepPackage> steps = planner.stepPackages(spec); // checked before anything is stored
        SubscriptionInfo created = store.create(spec);
        if (Boolean.FALSE.equals(spec.runImmediately())) {
            return new SubscriptionStarted(created, null, "not run (run_immediately is false): preview with GET /subscriptions/"
                    + created.id() + "/plan, run with POST /subscriptions/" + created.id() + "/run");
        }
        return SubscriptionStarted.of(created, runner.start(planner.prepare(created, steps), "create", p.name(),
                TaskScheduler.Selection.ALL).orElse(null));
    }

    /** To a token limited to businesses another business's subscription (and its tasks) is as missing: 404 for both. */
    public SubscriptionInfo get(Principal p, long id) {
        SubscriptionInfo s = store.get(id);
        if (!p.mayTouch(s.bkBizId())) {
            throw DomainException.notFound("subscription", id);
        }
        return s;
    }

    public List<SubscriptionInfo> list(Principal p, Long biz, String plugin) {
        return store.list(biz, plugin).stream().filter(s -> p.mayTouch(s.bkBizId())).toList();
    }

    public SubscriptionStarted update(Principal p, long id, SubscriptionSpec spec) {
        get(p, id);
        check(p, spec);
        Map<String, ChangePlanBuilder.StepPackage> steps = planner.stepPackages(spec);
        SubscriptionInfo updated = store.update(id, spec);
        return SubscriptionStarted.of(updated, runner.start(planner.prepare(updated, steps), "update", p.name(),
                TaskScheduler.Selection.ALL).orElse(null));
    }

    public SubscriptionStarted setEnabled(Principal p, long id, boolean enabled) {
        get(p, id);
        store.setEnabled(id, enabled);
        SubscriptionInfo s = store.get(id);
        return SubscriptionStarted.of(s, run(s, enabled ? "enable" : "disable", p.name()));
    }

    /** Uninstalls from every instance, then deletes; with {@code keepPlugins}, forgets the deployments at once. */
    public SubscriptionStarted delete(Principal p, long id, boolean keepPlugins) {
        SubscriptionInfo s = get(p, id);
        if (runner.runningTask(id).isPresent()) {
            throw DomainException.conflict("task_running", "subscription " + id + " has a task running; revoke it first");
        }
        if (keepPlugins || deployments.of(id).isEmpty()) {
            store.delete(id);
            return new SubscriptionStarted(s, null, "deleted");
        }
        ChangePlanBuilder.Prepared deletion = planner.prepareDeletion(s);
        List<String> offline = deletion.plan().instances().stream().filter(i -> i.steps().stream()
                .anyMatch(a -> a.reason() == Reason.AGENT_OFFLINE)).map(ChangePlanner.InstancePlan::instanceId).toList();
        String note = offline.isEmpty() ? null : offline.size() + " instance(s) stay deployed because their agent is offline"
                + " and are no longer tracked once the subscription is gone: " + String.join(", ", offline.stream().limit(20).toList())
                + (offline.size() > 20 ? ", …" : "");
        Optional<Long> task = runner.start(deletion, "delete", p.name(), TaskScheduler.Selection.ALL, deletedOnSuccess(id));
        if (task.isEmpty()) {
            store.delete(id); // nothing could be uninstalled now (e.g. every agent is offline)
            return new SubscriptionStarted(s, null, note == null ? "deleted" : "deleted; " + note);
        }
        return new SubscriptionStarted(s, task.get(), note);
    }

    private java.util.function.Consumer<RunStatus> deletedOnSuccess(long id) {
        return status -> {
            if (status == RunStatus.SUCCEEDED) {
                store.delete(id);
            }
        };
    }

    /**
     * What continuing a task of this subscription needs after its server stopped: the plan prepared again (the
     * deletion's for a delete task, which deletes the subscription once it succeeds).
     */
    public TaskScheduler.Resumption resumption(long subscriptionId, String trigger) {
        SubscriptionInfo s = store.get(subscriptionId);
        return "delete".equals(trigger) ? new TaskScheduler.Resumption(planner.prepareDeletion(s), deletedOnSuccess(subscriptionId))
                : new TaskScheduler.Resumption(planner.prepare(s), null);
    }

    public ChangePlanView plan(Principal p, long id) {
        return view(id, planner.prepare(get(p, id)));
    }

    /** The plan an update to {@code spec} would run, without saving it (checked like an update). */
    public ChangePlanView planProposed(Principal p, long id, SubscriptionSpec spec) {
        SubscriptionInfo s = get(p, id);
        check(p, spec);
        SubscriptionStore.checkFixedFields(s, spec);
        return view(id, planner.prepare(new SubscriptionInfo(s.id(), spec.name(), spec.scope().bkBizId(), s.objectType(),
                spec.scope().nodeType(), s.enabled(), spec, s.createdAt(), s.updatedAt())));
    }

    private static ChangePlanView view(long id, ChangePlanBuilder.Prepared prepared) {
        List<ChangePlanView.InstancePlan> instances = new ArrayList<>();
        for (ChangePlanner.InstancePlan ip : prepared.plan().instances()) {
            ScopeInstance i = prepared.instances().get(ip.instanceId());
            Long hostId = i != null ? i.host().bkHostId() : prepared.deployed().stream()
                    .filter(r -> r.instanceId().equals(ip.instanceId())).map(DeploymentStore.Row::hostId).findFirst().orElse(null);
            Host host = hostId == null ? null : prepared.hosts().get(hostId);
            instances.add(new ChangePlanView.InstancePlan(ip.instanceId(), hostId, host == null ? null : host.bkHostInnerip(),
                    ip.steps().stream().map(s -> new ChangePlanView.StepPlan(s.stepId(), s.action(), s.reason().name(),
                            s.reason().text(), s.detail())).toList()));
        }
        Map<String, Integer> totals = new LinkedHashMap<>();
        prepared.plan().totals().forEach((a, n) -> totals.put(a.name(), n));
        return new ChangePlanView(id, instances, totals, prepared.missing());
    }

    /** The full plan, or only the given actions on the given instances. */
    public SubscriptionStarted runNow(Principal p, long id, RunRequest request) {
        SubscriptionInfo s = get(p, id);
        Map<String, ChangeAction> forced = new LinkedHashMap<>();
        if (request != null && request.actions() != null) {
            Set<String> steps = new HashSet<>();
            s.spec().steps().forEach(step -> steps.add(step.id()));
            request.actions().forEach((step, action) -> {
                if (!steps.contains(step)) {
                    throw DomainException.invalid("actions." + step, "is not a step of subscription " + id + "; steps: " + steps);
                }
                try {
                    ChangeAction a = ChangeAction.valueOf(action.toUpperCase(Locale.ROOT));
                    if (!a.changes()) {
                        throw new IllegalArgumentException();
                    }
                    forced.put(step, a);
                } catch (IllegalArgumentException e) {
                    throw DomainException.invalid("actions." + step, "'" + action + "' is not INSTALL, UNINSTALL, PUSH_CONFIG, START or STOP");
                }
            });
        }
        Set<String> ids = request == null || request.instanceIds() == null || request.instanceIds().isEmpty() ? null
                : new HashSet<>(request.instanceIds());
        return SubscriptionStarted.of(s, runner.start(planner.prepare(s), "run", p.name(), new TaskScheduler.Selection(ids, forced)).orElse(null));
    }

    /** Runs the plan again for the instances that failed in the last task (or the ids given). */
    public SubscriptionStarted retry(Principal p, long id, List<String> instanceIds) {
        SubscriptionInfo s = get(p, id);
        List<String> ids = instanceIds == null || instanceIds.isEmpty() ? runner.failedInstances(id) : instanceIds;
        if (ids.isEmpty()) {
            throw DomainException.conflict("nothing_to_retry", "the last task of subscription " + id + " has no failed instance");
        }
        return SubscriptionStarted.of(s, runner.start(planner.prepare(s), "retry", p.name(),
                new TaskScheduler.Selection(new HashSet<>(ids), Map.of())).orElse(null));
    }

    public TaskInfo revoke(Principal p, long id) {
        get(p, id);
        long task = runner.runningTask(id).orElseThrow(() -> DomainException.conflict("task_not_running",
                "subscription " + id + " has no task running"));
        runner.revoke(task);
        return runner.get(task, false);
    }

    public List<InstanceStatus> instances(Principal p, long id) {
        get(p, id);
        Map<String, List<DeploymentStore.Row>> rows = new TreeMap<>();
        deployments.of(id).forEach(r -> rows.computeIfAbsent(r.instanceId(), k -> new ArrayList<>()).add(r));
        Map<String, TaskStore.LastTask> last = runner.lastTaskOfInstances(id);
        Set<String> all = new java.util.TreeSet<>(rows.keySet());
        all.addAll(last.keySet());
        List<InstanceStatus> out = new ArrayList<>();
        for (String instance : all) {
            List<InstanceStatus.Deployed> deployed = rows.getOrDefault(instance, List.of()).stream()
                    .map(r -> new InstanceStatus.Deployed(r.stepId(), r.plugin(), r.version(), r.status(), r.port(),
                            r.hostId(), r.groupId(), r.updatedAt())).toList();
            TaskStore.LastTask t = last.get(instance);
            out.add(new InstanceStatus(instance, state(t, deployed), deployed, t == null ? null : t.taskId(),
                    t == null ? null : t.status()));
        }
        return out;
    }

    private static InstanceState state(TaskStore.LastTask last, List<InstanceStatus.Deployed> deployed) {
        if (last != null && !last.status().finished()) {
            return last.status() == RunStatus.PENDING ? InstanceState.PENDING : InstanceState.RUNNING;
        }
        if (last != null && last.status() == RunStatus.FAILED) {
            return InstanceState.FAILED;
        }
        if (deployed.isEmpty()) {
            return InstanceState.NOT_DEPLOYED;
        }
        if (deployed.stream().allMatch(d -> d.status() == CopyStatus.RUNNING)) {
            return InstanceState.RUNNING;
        }
        return deployed.stream().anyMatch(d -> d.status() == CopyStatus.UNKNOWN) ? InstanceState.UNKNOWN : InstanceState.STOPPED;
    }

    /** Instances by status, and deployed copies by plugin version. */
    public SubscriptionStatistics statistics(Principal p, long id) {
        List<InstanceStatus> instances = instances(p, id);
        Map<String, Integer> byStatus = new TreeMap<>();
        Map<String, Integer> byVersion = new TreeMap<>();
        for (InstanceStatus i : instances) {
            byStatus.merge(i.status().name(), 1, Integer::sum);
            i.deployed().forEach(d -> byVersion.merge(d.plugin() + " " + d.version(), 1, Integer::sum));
        }
        return new SubscriptionStatistics(id, instances.size(), byStatus, byVersion);
    }

    public TaskInfo task(Principal p, long taskId) {
        TaskInfo t = runner.get(taskId, true);
        if (!p.mayTouch(store.get(t.subscriptionId()).bkBizId())) {
            throw DomainException.notFound("task", taskId);
        }
        return t;
    }

    public List<TaskInfo> tasks(Principal p, long id) {
        get(p, id);
        return runner.list(id);
    }

    /** What subscriptions deployed on one host. */
    public List<HostPlugin> hostPlugins(Principal p, long hostId) {
        List<HostPlugin> out = new ArrayList<>();
        for (DeploymentStore.Row r : deployments.ofHost(hostId)) {
            SubscriptionInfo s = store.get(r.subscriptionId());
            if (!p.mayTouch(s.bkBizId())) {
                continue;
            }
            out.add(new HostPlugin(r.plugin(), r.version(), r.status(), r.port(), r.subscriptionId(), s.name(),
                    r.stepId(), r.instanceId(), r.groupId(), List.copyOf(r.files().keySet())));
        }
        return out;
    }

    /** Plans and runs a subscription; the task id, or null when nothing needed doing. */
    public Long run(SubscriptionInfo s, String trigger, String actor) {
        return runner.start(planner.prepare(s), trigger, actor, TaskScheduler.Selection.ALL).orElse(null);
    }
}
