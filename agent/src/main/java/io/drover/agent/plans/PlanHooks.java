package io.drover.agent.plans;

import io.drover.core.plans.LogMessage;

/** What a running plan tells the channel it came from. */
public interface PlanHooks {
    /** A log message for the plan's originator ({@code api.log*} with notify). */
    void log(LogMessage message);

    /**
     * The plan waits for a reboot ({@code api.waitReboot}): if the agent stops now, run the plan again at start,
     * at most {@code maxReboots} times.
     */
    void restartable(int maxReboots);
}
