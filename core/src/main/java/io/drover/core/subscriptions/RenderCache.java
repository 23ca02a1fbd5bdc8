package io.drover.core.subscriptions;

import io.drover.core.subscriptions.InstanceRenderer.RenderedStep;
import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rendered files of one subscription's instances, kept between plans: an instance is rendered again only when
 * something its templates can see changed (its host or service record, its ports, its target hosts), and every
 * instance when the steps or the scope changed. Inputs are compared with {@code equals}, not hashed, so a change is
 * never missed.
 */
public final class RenderCache {
    private record Entry(ScopeInstance instance, Map<String, Integer> ports, Map<String, RenderedStep> rendered) {
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private volatile List<StepInput> steps;
    private volatile SubscriptionSpec.Scope scope;

    /** Forgets everything when the steps or the scope are not the ones the cached renders were made with. */
    synchronized void use(List<StepInput> newSteps, SubscriptionSpec.Scope newScope) {
        if (!Objects.equals(steps, newSteps) || !Objects.equals(scope, newScope)) {
            entries.clear();
            steps = newSteps;
            scope = newScope;
        }
    }

    Map<String, RenderedStep> get(ScopeInstance i, Map<String, Integer> ports) {
        Entry e = entries.get(i.instanceId());
        if (e == null || !e.ports().equals(ports) || !sameInputs(e.instance(), i)) {
            return null;
        }
        if (e.instance() != i) {
            // Keep the instance just resolved, so the one resolved before (its host, ids and targets) can be freed.
            entries.remove(i.instanceId());
            entries.put(i.instanceId(), new Entry(i, e.ports(), e.rendered()));
        }
        return e.rendered();
    }

    private static boolean sameInputs(ScopeInstance was, ScopeInstance now) {
        return was == now || (was.host().equals(now.host()) && Objects.equals(was.service(), now.service())
                && was.targetHosts().equals(now.targetHosts()) && was.groupId().equals(now.groupId()));
    }

    void put(ScopeInstance i, Map<String, Integer> ports, Map<String, RenderedStep> rendered) {
        entries.put(i.instanceId(), new Entry(i, Map.copyOf(ports), rendered));
    }

    /** Drops instances that are no longer in the scope. */
    void retain(java.util.Set<String> instanceIds) {
        entries.keySet().retainAll(instanceIds);
    }

    public int size() {
        return entries.size();
    }
}
