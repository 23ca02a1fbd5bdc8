package io.drover.agent.plans;

import io.drover.core.plans.LogMessage;

/** What a running plan tells the channel it came from. */
public interface PlanHooks {
    /** A log message for the plan's originator ({@code api.log*} with notify). */
    void log(LogMessage message);

    /**
     * The plan waits for a reboot ({@code api.waitReboot}): if the agent stops now, run the plan again at start,
     * unless it has already been restarted after {@code maxReboots} reboots ({@code api.expectReboots}).
     */
    void restartable(int maxReboots);

    /** The wait for a reboot ended without one: a stop from now on is a crash. */
    void rebootWaitOver();
}
