package io.drover.agent.plans;

import io.drover.core.plans.ExecutionPlan;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One run of a plan: its working directory, its deadline, and the processes it has running (the Body's python3 and
 * any script), so that a timeout can kill them all.
 */
final class PlanContext {
    private final ExecutionPlan plan;
    private final Path workDir;
    private final Clock clock;
    private final Instant deadline;
    private final Set<Process> processes = ConcurrentHashMap.newKeySet();
    private volatile boolean timedOut;

    PlanContext(ExecutionPlan plan, Path workDir, Clock clock, Duration timeout) {
        this.plan = plan;
        this.workDir = workDir;
        this.clock = clock;
        this.deadline = clock.instant().plus(timeout);
    }

    ExecutionPlan plan() {
        return plan;
    }

    Path workDir() {
        return workDir;
    }

    Instant deadline() {
        return deadline;
    }

    /** How long a script may run: its own timeout, cut at the plan's deadline. */
    Duration limit(Duration scriptTimeout) {
        Duration left = Duration.between(clock.instant(), deadline);
        if (left.isNegative()) {
            left = Duration.ZERO;
        }
        return scriptTimeout != null && scriptTimeout.compareTo(left) < 0 ? scriptTimeout : left;
    }

    void track(Process process) {
        processes.add(process);
    }

    void untrack(Process process) {
        processes.remove(process);
    }

    /** The plan ran out of time: every process it has is killed. */
    void expire() {
        timedOut = true;
        for (Process process : processes) {
            ProcessGroups.kill(process);
        }
    }

    boolean timedOut() {
        return timedOut;
    }
}
