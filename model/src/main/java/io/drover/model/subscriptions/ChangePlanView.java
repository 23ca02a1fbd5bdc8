package io.drover.model.subscriptions;

import java.util.List;
import java.util.Map;

/** A plan as {@code drover sub plan} shows it: per instance and step the action and its reason, and totals. */
public record ChangePlanView(long subscriptionId, List<InstancePlan> instances, Map<String, Integer> totals,
                       List<String> missing) {
    public record InstancePlan(String instanceId, Long bkHostId, String host, List<StepPlan> steps) {
    }

    public record StepPlan(String stepId, ChangeAction action, String reason, String why, String detail) {
    }
}
