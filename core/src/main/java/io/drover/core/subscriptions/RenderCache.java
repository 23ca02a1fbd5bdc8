package io.drover.core.subscriptions;

import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.ChangePlanner.DesiredStep;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What planning compared of one subscription's instances, kept between plans: each step's file md5s (all steps of an
 * instance in one array, handed out as {@link FileDigests}) or render error, not the files. An instance is rendered again only when something its
 * templates can see changed (its host or service record, its ports, its target hosts), and every instance when the
 * steps or the scope changed. Inputs are compared with {@code equals}, not hashed, so a change is never missed.
 * Keeping md5s only is sound because rendering is deterministic: the files rendered again for a run are the ones
 * whose md5s were planned.
 */
public final class RenderCache {
    /**
     * One instance's inputs and what its steps rendered: the md5s of all steps in one array, laid out as
     * {@code layout} says (shared by the instances of the subscription); or, when a step failed, the steps as they were.
     */
    private record Entry(ScopeInstance instance, Map<String, Integer> ports, Layout layout, long[] md5,
                         Map<String, DesiredStep> withError) {
    }

    /** The steps in the order their md5s are kept, and each step's file paths. */
    private record Layout(List<String> stepIds, List<FileDigests.Paths> paths) {
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    /** The file paths of each step, shared by every instance. */
    private final Map<FileDigests.Paths, FileDigests.Paths> paths = new ConcurrentHashMap<>();
    private final Map<Layout, Layout> layouts = new ConcurrentHashMap<>();
    private volatile List<StepInput> steps;
    private volatile SubscriptionSpec.Scope scope;

    /** Forgets everything when the steps or the scope are not the ones the cached renders were made with. */
    synchronized void use(List<StepInput> newSteps, SubscriptionSpec.Scope newScope) {
        if (!Objects.equals(steps, newSteps) || !Objects.equals(scope, newScope)) {
            entries.clear();
            paths.clear();
            layouts.clear();
            steps = newSteps;
            scope = newScope;
        }
    }

    Map<String, DesiredStep> get(ScopeInstance i, Map<String, Integer> ports) {
        Entry e = entries.get(i.instanceId());
        if (e == null || !e.ports().equals(ports) || !sameInputs(e.instance(), i)) {
            return null;
        }
        if (e.instance() != i) {
            // Keep the instance just resolved (and its id as the key), so the one resolved before can be freed.
            entries.remove(i.instanceId());
            entries.put(i.instanceId(), new Entry(i, e.ports(), e.layout(), e.md5(), e.withError()));
        }
        return e.withError() != null ? e.withError() : steps(e.layout(), e.md5(), i.groupId());
    }

    private static Map<String, DesiredStep> steps(Layout layout, long[] md5, String groupId) {
        Map<String, DesiredStep> steps = new LinkedHashMap<>();
        int at = 0;
        for (int s = 0; s < layout.stepIds().size(); s++) {
            FileDigests files = FileDigests.view(layout.paths().get(s), groupId, md5, at);
            steps.put(layout.stepIds().get(s), DesiredStep.rendered(files));
            at += 2 * files.size();
        }
        return Map.copyOf(steps);
    }

    /** The instance resolved before under this id, if any: the resolver takes its id strings instead of new ones. */
    public ScopeInstance known(String instanceId) {
        Entry e = entries.get(instanceId);
        return e == null ? null : e.instance();
    }

    private static boolean sameInputs(ScopeInstance was, ScopeInstance now) {
        return was == now || (was.host().equals(now.host()) && Objects.equals(was.service(), now.service())
                && was.targetHosts().equals(now.targetHosts()) && was.groupId().equals(now.groupId()));
    }

    void put(ScopeInstance i, Map<String, Integer> ports, Map<String, DesiredStep> desired) {
        Map<String, Integer> copy = Map.copyOf(ports);
        if (!allDigests(desired, i.groupId())) {
            entries.put(i.instanceId(), new Entry(i, copy, null, null, desired));
            return;
        }
        List<String> stepIds = new ArrayList<>();
        List<FileDigests.Paths> stepPaths = new ArrayList<>();
        int longs = 0;
        for (Map.Entry<String, DesiredStep> step : desired.entrySet()) {
            FileDigests files = (FileDigests) step.getValue().files();
            stepIds.add(step.getKey());
            stepPaths.add(files.paths());
            longs += 2 * files.size();
        }
        long[] md5 = new long[longs];
        int at = 0;
        for (DesiredStep step : desired.values()) {
            at = ((FileDigests) step.files()).copyMd5s(md5, at);
        }
        Layout layout = new Layout(List.copyOf(stepIds), List.copyOf(stepPaths));
        Layout known = layouts.putIfAbsent(layout, layout);
        entries.put(i.instanceId(), new Entry(i, copy, known == null ? layout : known, md5, null));
    }

    /** Whether every step rendered, with digests whose paths are split at this instance's group id. */
    private static boolean allDigests(Map<String, DesiredStep> desired, String groupId) {
        for (DesiredStep step : desired.values()) {
            if (step.renderError() != null || !(step.files() instanceof FileDigests d) || !d.groupId().equals(groupId)) {
                return false;
            }
        }
        return true;
    }

    FileDigests.Paths intern(FileDigests.Paths p) {
        FileDigests.Paths known = paths.putIfAbsent(p, p);
        return known == null ? p : known;
    }

    /** Drops instances that are no longer in the scope. */
    void retain(Collection<ScopeInstance> instances) {
        Set<String> ids = new HashSet<>(instances.size() * 2);
        instances.forEach(i -> ids.add(i.instanceId()));
        entries.keySet().retainAll(ids);
    }

    public int size() {
        return entries.size();
    }
}
