package io.drover.core.plans;

import java.time.Duration;
import java.util.Map;

/**
 * A validated vNext execution plan. {@code formatVersion} is the version the sender wrote (1.0.0 when a vCurrent plan
 * was converted, see {@code converted}); {@code service} scopes the state API (null: no state API); {@code timeout} is
 * the whole plan's limit (Drover's {@code Timeout} key, in seconds), or null for the agent's default.
 */
public record ExecutionPlan(String formatVersion, String id, Long stamp, String name, String version, String service,
                           Map<String, Object> parameters, String body, Map<String, PlanFile> files,
                           Map<String, PlanScript> scripts, String replyTo, Duration timeout, boolean converted) {
}
