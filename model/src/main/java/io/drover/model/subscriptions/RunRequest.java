package io.drover.model.subscriptions;

import java.util.List;

/**
 * Run a subscription: the full plan, or with {@code actions} ({@code {step_id: INSTALL|...}}) only those actions on
 * the given {@code instance_ids} (a partial scope); {@code retry} re-runs failed instances (or the ids given).
 */
public record RunRequest(java.util.Map<String, String> actions, List<String> instanceIds) {
}
