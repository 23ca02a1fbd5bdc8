package io.drover.server.subscriptions.execution;

import io.drover.core.subscriptions.ChangePlanner.InstancePlan;
import io.drover.core.subscriptions.ChangePlanner.StepAction;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.subscriptions.planning.ChangePlanBuilder;
import java.time.Clock;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Runs one instance of a task: its steps in order, each recorded as it goes, stopping at the first failure. An
 * instance taken over from a server that stopped continues from its record: finished steps are not run again and the
 * step that was running is replayed under its recorded job ids ({@link StepJournal}).
 */
final class InstanceRunner {
    private final TaskStore tasks;
    private final StepExecutor steps;
    private final AgentCalls agents;
    private final Clock clock;

    InstanceRunner(TaskStore tasks, StepExecutor steps, AgentCalls agents, Clock clock) {
        this.tasks = tasks;
        this.steps = steps;
        this.agents = agents;
        this.clock = clock;
    }

    /** The steps a task records for an instance before it runs. */
    static List<StepRecord> planned(InstancePlan ip) {
        return ip.steps().stream().map(s -> new StepRecord(s.stepId(), s.action(), s.reason().name(),
                s.action().changes() ? RunStatus.PENDING : s.action() == ChangeAction.FAIL ? RunStatus.FAILED : RunStatus.SKIPPED,
                List.of())).toList();
    }

    /**
     * True when nothing failed. {@code recorded}: the instance's steps as a stopped server left them, or null for a
     * new run. {@code revoked} is asked before each step; a step cut short because the server is stopping leaves the
     * instance RUNNING, for the server that takes the task over to continue.
     */
    boolean run(long taskId, ChangePlanBuilder.Prepared p, InstancePlan ip, List<StepRecord> recorded, BooleanSupplier revoked) {
        if (revoked.getAsBoolean()) {
            tasks.finishInstance(taskId, ip.instanceId(), RunStatus.REVOKED, "the task was revoked");
            return true;
        }
        StepJournal journal = new StepJournal(recorded == null ? planned(ip) : recorded,
                records -> tasks.saveSteps(taskId, ip.instanceId(), records), agents.forBusinesses(p.businesses()), clock);
        if (recorded == null) {
            tasks.instanceStarted(taskId, ip.instanceId());
        }
        boolean anyWork = false;
        for (StepAction step : ip.steps()) {
            if (step.action() == ChangeAction.FAIL) {
                tasks.finishInstance(taskId, ip.instanceId(), RunStatus.FAILED, step.detail());
                return false;
            }
            if (!step.action().changes()) {
                continue;
            }
            anyWork = true;
            RunStatus before = journal.status(step.stepId());
            if (before == RunStatus.SUCCEEDED) {
                continue; // done before the takeover
            }
            if (before == RunStatus.FAILED) { // failed before the takeover, the instance not yet ended
                tasks.finishInstance(taskId, ip.instanceId(), RunStatus.FAILED, "step " + step.stepId() + " failed");
                return false;
            }
            if (revoked.getAsBoolean()) {
                tasks.finishInstance(taskId, ip.instanceId(), RunStatus.REVOKED, "the task was revoked before step " + step.stepId());
                return true;
            }
            journal.beginStep(step.stepId());
            String error = steps.run(p, ip.instanceId(), step, journal);
            if (error != null && Thread.currentThread().isInterrupted()) {
                return false; // the server is stopping and cut the wait short: the error says nothing about the agent
            }
            journal.endStep(error == null ? RunStatus.SUCCEEDED : RunStatus.FAILED);
            if (error != null) {
                ip.steps().stream().dropWhile(s -> s != step).skip(1).filter(s -> s.action().changes())
                        .forEach(s -> journal.markStep(s.stepId(), RunStatus.SKIPPED));
                tasks.finishInstance(taskId, ip.instanceId(), RunStatus.FAILED, error);
                return false;
            }
        }
        tasks.finishInstance(taskId, ip.instanceId(), anyWork ? RunStatus.SUCCEEDED : RunStatus.SKIPPED,
                anyWork ? null : skipReason(ip));
        return true;
    }

    private static String skipReason(InstancePlan ip) {
        return ip.steps().stream().filter(s -> s.action() == ChangeAction.SKIP).map(s -> s.stepId() + ": " + s.reason().text()
                + (s.detail() == null ? "" : " (" + s.detail() + ")")).findFirst().orElse(null);
    }
}
