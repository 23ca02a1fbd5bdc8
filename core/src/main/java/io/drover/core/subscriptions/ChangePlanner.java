package io.drover.core.subscriptions;

import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.CopyStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Compares what a subscription wants (each instance in its scope, with the files each step renders) with what is
 * deployed, and decides per instance and step: INSTALL, UNINSTALL, PUSH_CONFIG, START, STOP, NOT_CHANGE, SKIP or
 * FAIL, with a {@link Reason}. A pure function: the same inputs give the same plan, and nothing is changed.
 *
 * <p>Install-like actions follow the step order; UNINSTALL and STOP go in reverse step order, so a step is removed
 * before the ones it was set up after.
 */
public final class ChangePlanner {
    /** One step of the subscription: its id and the plugin version it deploys. */
    public record StepSpec(String id, String version) {
    }

    /** What one step should look like on an instance: rendered file path → md5, or why rendering failed. */
    public record DesiredStep(Map<String, String> files, String renderError) {
        /** {@code files}: path → md5; {@link FileDigests} are kept as they are (compact and immutable). */
        public static DesiredStep rendered(Map<String, String> files) {
            return new DesiredStep(files instanceof FileDigests d ? d : Map.copyOf(files), null);
        }

        public static DesiredStep failed(String error) {
            return new DesiredStep(Map.of(), error);
        }
    }

    /** An instance in the scope now: the hosts it deploys to, whether their agents answer, and each step's files. */
    public record Desired(String instanceId, Set<Long> targetHosts, Set<Long> offlineHosts, Map<String, DesiredStep> steps) {
    }

    /** One deployed copy of one step on one host. */
    public record Copy(long hostId, String version, CopyStatus status, Map<String, String> files) {
    }

    /** Why a deployed instance is no longer wanted. */
    public enum Departure {
        /** Its object left the scope: uninstalled. */
        LEFT_SCOPE,
        /** Its object moved to another business: kept while the subscription lives, the other business's to manage. */
        LEFT_BUSINESS,
        /** The subscription is being deleted: every copy it deployed is uninstalled, wherever its host is now. */
        SUBSCRIPTION_DELETED
    }

    /** An instance that is deployed but no longer in the scope, and why. */
    public record Departed(String instanceId, Departure why, Set<Long> offlineHosts) {
    }

    /** The decision for one step of one instance. */
    public record StepAction(String stepId, ChangeAction action, Reason reason, String detail) {
    }

    /** All decisions for one instance, in execution order. */
    public record InstancePlan(String instanceId, List<StepAction> steps) {
        public boolean changes() {
            return steps.stream().anyMatch(s -> s.action().changes());
        }
    }

    /** The whole plan: instances in id order and counts per action. */
    public record Plan(List<InstancePlan> instances, Map<ChangeAction, Integer> totals) {
        public boolean changesNothing() {
            return instances.stream().noneMatch(InstancePlan::changes);
        }
    }

    private ChangePlanner() {
    }

    /**
     * @param enabled  whether the subscription is enabled (disabled: running copies are stopped, nothing installed)
     * @param steps    the subscription's steps in order
     * @param desired  instances in the scope now
     * @param deployed instance id → step id → copies (one per target host)
     * @param departed deployed instances that left the scope, with whether they left the business
     */
    public static Plan plan(boolean enabled, List<StepSpec> steps, List<Desired> desired,
                            Map<String, Map<String, List<Copy>>> deployed, List<Departed> departed) {
        return plan(enabled, steps, desired.parallelStream(), deployed, departed);
    }

    /**
     * As {@link #plan(boolean, List, List, Map, List)}, with the desired instances made as they are planned, so that
     * a large scope never holds them all at once. The stream may be parallel.
     */
    public static Plan plan(boolean enabled, List<StepSpec> steps, Stream<Desired> desired,
                            Map<String, Map<String, List<Copy>>> deployed, List<Departed> departed) {
        SharedActions shared = new SharedActions();
        List<InstancePlan> inScope = new ArrayList<>(desired.map(d -> shared.of(planInScope(enabled, steps, d,
                deployed.getOrDefault(d.instanceId(), Map.of())))).toList());
        inScope.sort(BY_ID);
        List<InstancePlan> plans = lastOfEachId(inScope);
        Set<String> departedIds = new HashSet<>();
        boolean anyDeparted = false;
        for (Departed d : departed) {
            if (Collections.binarySearch(inScope, key(d.instanceId()), BY_ID) < 0 && departedIds.add(d.instanceId())) {
                plans.add(planDeparted(steps, d, deployed.getOrDefault(d.instanceId(), Map.of())));
                anyDeparted = true;
            }
        }
        if (anyDeparted) {
            plans.sort(BY_ID);
        }
        Map<ChangeAction, Integer> totals = new EnumMap<>(ChangeAction.class);
        for (InstancePlan p : plans) {
            for (StepAction s : p.steps()) {
                totals.merge(s.action(), 1, Integer::sum);
            }
        }
        return new Plan(List.copyOf(plans), totals);
    }

    private static final Comparator<InstancePlan> BY_ID = Comparator.comparing(InstancePlan::instanceId);

    private static InstancePlan key(String instanceId) {
        return new InstancePlan(instanceId, List.of());
    }

    /** Of instances listed more than once (sorted, stable), the last one, as a map keyed by id would keep. */
    private static List<InstancePlan> lastOfEachId(List<InstancePlan> sorted) {
        List<InstancePlan> out = new ArrayList<>(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            if (i + 1 == sorted.size() || !sorted.get(i).instanceId().equals(sorted.get(i + 1).instanceId())) {
                out.add(sorted.get(i));
            }
        }
        return out;
    }

    private static InstancePlan planInScope(boolean enabled, List<StepSpec> steps, Desired d, Map<String, List<Copy>> copies) {
        List<StepAction> forward = new ArrayList<>(steps.size());
        List<StepAction> backward = new ArrayList<>(0);
        for (StepSpec step : steps) {
            StepAction a = enabled ? decide(step, d, copies.getOrDefault(step.id(), List.of()))
                    : decideDisabled(step, d, copies.getOrDefault(step.id(), List.of()));
            (a.action() == ChangeAction.STOP || a.action() == ChangeAction.UNINSTALL ? backward : forward).add(a);
        }
        if (hasUnknownStep(steps, copies)) {
            for (Map.Entry<String, List<Copy>> e : new java.util.TreeMap<>(copies).entrySet()) {
                if (!isStep(steps, e.getKey()) && !e.getValue().isEmpty()) {
                    backward.add(offline(d.offlineHosts(), e.getValue(), e.getKey())
                            ? new StepAction(e.getKey(), ChangeAction.SKIP, Reason.AGENT_OFFLINE, offlineDetail(d.offlineHosts()))
                            : new StepAction(e.getKey(), ChangeAction.UNINSTALL, Reason.STEP_REMOVED, null));
                }
            }
        }
        return new InstancePlan(d.instanceId(), join(forward, backward));
    }

    private static boolean hasUnknownStep(List<StepSpec> steps, Map<String, List<Copy>> copies) {
        for (String stepId : copies.keySet()) {
            if (!isStep(steps, stepId)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isStep(List<StepSpec> steps, String stepId) {
        for (StepSpec s : steps) {
            if (s.id().equals(stepId)) {
                return true;
            }
        }
        return false;
    }

    private static StepAction decide(StepSpec step, Desired d, List<Copy> copies) {
        DesiredStep want = d.steps().get(step.id());
        if (want != null && want.renderError() != null) {
            return new StepAction(step.id(), ChangeAction.FAIL, Reason.RENDER_FAILED, want.renderError());
        }
        if (!d.offlineHosts().isEmpty()) {
            return new StepAction(step.id(), ChangeAction.SKIP, Reason.AGENT_OFFLINE, offlineDetail(d.offlineHosts()));
        }
        Map<String, String> files = want == null ? Map.of() : want.files();
        if (copies.isEmpty()) {
            return new StepAction(step.id(), ChangeAction.INSTALL, Reason.NEW_INSTALL, null);
        }
        if (copies.stream().anyMatch(c -> c.status() == CopyStatus.UNKNOWN)) {
            return new StepAction(step.id(), ChangeAction.INSTALL, Reason.LAST_RUN_UNKNOWN, null);
        }
        if (copies.size() != d.targetHosts().size() || !onEachTargetOnce(copies, d.targetHosts())) {
            return new StepAction(step.id(), ChangeAction.INSTALL, Reason.PROC_NUM_NOT_MATCH,
                    copies.size() + " deployed, " + d.targetHosts().size() + " target host(s)");
        }
        for (Copy c : copies) {
            if (!c.version().equals(step.version())) {
                return new StepAction(step.id(), ChangeAction.INSTALL, Reason.VERSION_CHANGE, c.version() + " → " + step.version());
            }
        }
        for (Copy c : copies) {
            if (!c.files().equals(files)) {
                return new StepAction(step.id(), ChangeAction.PUSH_CONFIG, Reason.CONFIG_CHANGE, fileChanges(c.files(), files));
            }
        }
        if (copies.stream().anyMatch(c -> c.status() == CopyStatus.STOPPED)) {
            return new StepAction(step.id(), ChangeAction.START, Reason.PROC_STOPPED, null);
        }
        return new StepAction(step.id(), ChangeAction.NOT_CHANGE, Reason.UP_TO_DATE, null);
    }

    private static StepAction decideDisabled(StepSpec step, Desired d, List<Copy> copies) {
        boolean running = copies.stream().anyMatch(c -> c.status() != CopyStatus.STOPPED);
        if (!running) {
            return new StepAction(step.id(), ChangeAction.NOT_CHANGE, Reason.SUBSCRIPTION_DISABLED, null);
        }
        if (!d.offlineHosts().isEmpty()) {
            return new StepAction(step.id(), ChangeAction.SKIP, Reason.AGENT_OFFLINE, offlineDetail(d.offlineHosts()));
        }
        return new StepAction(step.id(), ChangeAction.STOP, Reason.SUBSCRIPTION_DISABLED, null);
    }

    private static InstancePlan planDeparted(List<StepSpec> steps, Departed d, Map<String, List<Copy>> copies) {
        List<String> order = new ArrayList<>();
        steps.forEach(s -> order.add(s.id()));
        new java.util.TreeMap<>(copies).keySet().stream().filter(id -> !order.contains(id)).forEach(order::add);
        List<StepAction> actions = new ArrayList<>();
        for (String stepId : order.reversed()) {
            List<Copy> stepCopies = copies.getOrDefault(stepId, List.of());
            if (stepCopies.isEmpty()) {
                continue;
            }
            if (d.why() == Departure.LEFT_BUSINESS) {
                actions.add(new StepAction(stepId, ChangeAction.SKIP, Reason.OUT_OF_BUSINESS, null));
            } else if (offline(d.offlineHosts(), stepCopies, stepId)) {
                actions.add(new StepAction(stepId, ChangeAction.SKIP, Reason.AGENT_OFFLINE, offlineDetail(d.offlineHosts())));
            } else {
                actions.add(new StepAction(stepId, ChangeAction.UNINSTALL, d.why() == Departure.SUBSCRIPTION_DELETED
                        ? Reason.SUBSCRIPTION_DELETED : Reason.REMOVE_FROM_SCOPE, null));
            }
        }
        return new InstancePlan(d.instanceId(), actions);
    }

    private static boolean offline(Set<Long> offlineHosts, List<Copy> copies, String stepId) {
        return copies.stream().anyMatch(c -> offlineHosts.contains(c.hostId()));
    }

    private static String offlineDetail(Set<Long> hosts) {
        return "host(s) " + new TreeSet<>(hosts) + " offline";
    }

    private static String fileChanges(Map<String, String> have, Map<String, String> want) {
        Set<String> added = new TreeSet<>(want.keySet());
        added.removeAll(have.keySet());
        Set<String> removed = new TreeSet<>(have.keySet());
        removed.removeAll(want.keySet());
        Set<String> changed = new TreeSet<>();
        want.forEach((f, md5) -> {
            if (have.containsKey(f) && !have.get(f).equals(md5)) {
                changed.add(f);
            }
        });
        Map<String, Set<String>> parts = new LinkedHashMap<>();
        parts.put("changed", changed);
        parts.put("added", added);
        parts.put("removed", removed);
        List<String> text = new ArrayList<>();
        parts.forEach((k, v) -> {
            if (!v.isEmpty()) {
                text.add(k + " " + String.join(", ", v));
            }
        });
        return String.join("; ", text);
    }

    /** Whether the copies are on exactly the target hosts (as many copies as targets), one per host. */
    private static boolean onEachTargetOnce(List<Copy> copies, Set<Long> targets) {
        if (copies.size() == 1) {
            return targets.contains(copies.getFirst().hostId());
        }
        Set<Long> deployedOn = new HashSet<>();
        for (Copy c : copies) {
            if (!targets.contains(c.hostId()) || !deployedOn.add(c.hostId())) {
                return false;
            }
        }
        return true;
    }

    private static List<StepAction> join(List<StepAction> forward, List<StepAction> backward) {
        List<StepAction> all = new ArrayList<>(forward);
        all.addAll(backward.reversed());
        return List.copyOf(all);
    }
}
