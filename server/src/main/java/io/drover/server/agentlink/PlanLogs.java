package io.drover.server.agentlink;

import java.util.Map;

/** Where the agent link hands an execution plan's log line ({@code drover/agent/<id>/plan/<run>/log}). */
@FunctionalInterface
public interface PlanLogs {
    /** Keeps the line when the plan run was sent to this agent; false (the event is refused) otherwise. */
    boolean onLog(String agentId, String planRun, Map<?, ?> message);
}
