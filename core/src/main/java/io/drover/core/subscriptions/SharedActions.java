package io.drover.core.subscriptions;

import io.drover.core.subscriptions.ChangePlanner.InstancePlan;
import io.drover.core.subscriptions.ChangePlanner.StepAction;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out one shared list for equal step decisions without details. Most instances of a large scope get the same
 * few decisions (every step NOT_CHANGE, or every step INSTALL), and the lists are immutable, so a plan of a million
 * instances holds a handful of lists instead of a million.
 */
final class SharedActions {
    private final Map<List<StepAction>, List<StepAction>> lists = new ConcurrentHashMap<>();

    InstancePlan of(InstancePlan plan) {
        for (StepAction a : plan.steps()) {
            if (a.detail() != null) {
                return plan;
            }
        }
        List<StepAction> shared = lists.computeIfAbsent(plan.steps(), steps -> steps);
        return shared == plan.steps() ? plan : new InstancePlan(plan.instanceId(), shared);
    }
}
