package io.drover.core.subscriptions;

import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.Planner.DesiredStep;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What planning compared of one subscription's instances, kept between plans: each step's file md5s
 * ({@link FileDigests}) or render error, not the files. An instance is rendered again only when something its
 * templates can see changed (its host or service record, its ports, its target hosts), and every instance when the
 * steps or the scope changed. Inputs are compared with {@code equals}, not hashed, so a change is never missed.
 * Keeping md5s only is sound because rendering is deterministic: the files rendered again for a run are the ones
 * whose md5s were planned.
 */
public final class RenderCache {
    private record Entry(ScopeInstance instance, Map<String, Integer> ports, Map<String, DesiredStep> steps) {
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    /** The file paths of each step, shared by every instance. */
    private final Map<FileDigests.Paths, FileDigests.Paths> paths = new ConcurrentHashMap<>();
    private volatile List<StepInput> steps;
    private volatile SubscriptionSpec.Scope scope;

    /** Forgets everything when the steps or the scope are not the ones the cached renders were made with. */
    synchronized void use(List<StepInput> newSteps, SubscriptionSpec.Scope newScope) {
        if (!Objects.equals(steps, newSteps) || !Objects.equals(scope, newScope)) {
            entries.clear();
            paths.clear();
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
            entries.put(i.instanceId(), new Entry(i, e.ports(), e.steps()));
        }
        return e.steps();
    }

    private static boolean sameInputs(ScopeInstance was, ScopeInstance now) {
        return was == now || (was.host().equals(now.host()) && Objects.equals(was.service(), now.service())
                && was.targetHosts().equals(now.targetHosts()) && was.groupId().equals(now.groupId()));
    }

    void put(ScopeInstance i, Map<String, Integer> ports, Map<String, DesiredStep> desired) {
        entries.put(i.instanceId(), new Entry(i, Map.copyOf(ports), desired));
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
