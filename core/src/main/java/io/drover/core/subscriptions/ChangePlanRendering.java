package io.drover.core.subscriptions;

import io.drover.core.subscriptions.InstanceRenderer.RenderedStep;
import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.ChangePlanner.DesiredStep;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The renders of one plan of a subscription: for planning, each instance's file md5s (from the cache while its
 * inputs are unchanged); for a run, an instance's files rendered again with the same inputs and ports, which gives
 * the same text since rendering is deterministic. Safe to use from several threads.
 */
public final class ChangePlanRendering {
    private final InstanceRenderer renderer;
    private final SubscriptionSpec.Scope scope;
    private final List<StepInput> steps;
    private final Map<String, Map<String, Integer>> ports;
    private final Map<String, Integer> firstPorts;
    private final RenderCache cache;

    /**
     * @param ports      instance id → step id → the port its deployed copy holds
     * @param firstPorts step id → the first port of its package's range, for copies that hold none yet
     */
    public ChangePlanRendering(InstanceRenderer renderer, SubscriptionSpec.Scope scope, List<StepInput> steps,
                         Map<String, Map<String, Integer>> ports, Map<String, Integer> firstPorts, RenderCache cache) {
        this.renderer = renderer;
        this.scope = scope;
        this.steps = steps;
        this.ports = ports;
        this.firstPorts = Map.copyOf(firstPorts);
        this.cache = cache;
        cache.use(steps, scope);
    }

    /** The ports an instance renders with: its copies' own ports over each range's first port. */
    public Map<String, Integer> portsOf(String instanceId) {
        Map<String, Integer> own = ports.get(instanceId);
        if (own == null || own.isEmpty()) {
            return firstPorts;
        }
        Map<String, Integer> all = new HashMap<>(firstPorts);
        all.putAll(own);
        return all;
    }

    /** Step id → the md5 of each file the step renders for this instance, or why it failed to render. */
    public Map<String, DesiredStep> desiredSteps(ScopeInstance instance) {
        Map<String, Integer> instancePorts = portsOf(instance.instanceId());
        Map<String, DesiredStep> desired = cache.get(instance, instancePorts);
        if (desired == null) {
            desired = digests(instance, renderer.render(instance, scope, steps, instancePorts));
            cache.put(instance, instancePorts, desired);
        }
        return desired;
    }

    /** Step id → the files of one instance, rendered now as planning rendered them. */
    public Map<String, RenderedStep> files(ScopeInstance instance) {
        return renderer.render(instance, scope, steps, portsOf(instance.instanceId()));
    }

    /** As {@link #files(ScopeInstance)}, with other inputs for the same steps (the secrets' values in place). */
    public Map<String, RenderedStep> files(ScopeInstance instance, List<StepInput> with) {
        return renderer.render(instance, scope, with, portsOf(instance.instanceId()));
    }

    /** After a plan: forgets the instances that are not in its scope. */
    public void retain(Collection<ScopeInstance> instances) {
        cache.retain(instances);
    }

    private Map<String, DesiredStep> digests(ScopeInstance instance, Map<String, RenderedStep> rendered) {
        Map<String, DesiredStep> out = new LinkedHashMap<>();
        rendered.forEach((stepId, r) -> out.put(stepId, r.error() != null ? DesiredStep.failed(r.error())
                : DesiredStep.rendered(FileDigests.ofContents(r.digestContents(), instance.groupId(), cache::intern))));
        return Map.copyOf(out);
    }
}
