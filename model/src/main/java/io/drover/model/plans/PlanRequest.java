package io.drover.model.plans;

import java.util.Map;

/**
 * Run an execution plan (the unified agent's JSON document) on the agents a target names, Salt-style; {@code
 * parameters} are merged over the plan's own Parameters; {@code timeout} is how long the server waits for the
 * agents' results (seconds, default 3600).
 */
public record PlanRequest(String tgt, String tgtType, Map<String, Object> plan, Map<String, Object> parameters, Integer timeout) {
}
