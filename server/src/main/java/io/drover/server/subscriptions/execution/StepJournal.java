package io.drover.server.subscriptions.execution;

import io.drover.model.agentapi.AgentResult;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.model.subscriptions.TaskInfo.SubStep;
import io.drover.server.jobs.AgentCalls;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The record of one instance in a task: its steps and their sub-steps with status, times and log lines. Every
 * change is written through {@link Saver} at once, so a reader (and a restarted server) sees the run as it is.
 */
final class StepJournal {
    /** Persists the instance's record. */
    interface Saver {
        void save(List<StepRecord> steps);
    }

    private final List<StepRecord> steps = new ArrayList<>();
    private final Saver saver;
    private int current = -1;
    private final Clock clock;

    StepJournal(List<StepRecord> planned, Saver saver, Clock clock) {
        this.steps.addAll(planned);
        this.saver = saver;
        this.clock = clock;
    }

    synchronized List<StepRecord> steps() {
        return List.copyOf(steps);
    }

    synchronized void beginStep(String stepId) {
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).stepId().equals(stepId)) {
                current = i;
                StepRecord s = steps.get(i);
                steps.set(i, new StepRecord(s.stepId(), s.action(), s.reason(), RunStatus.RUNNING, s.subSteps()));
                saver.save(steps());
                return;
            }
        }
    }

    synchronized void endStep(RunStatus status) {
        StepRecord s = steps.get(current);
        steps.set(current, new StepRecord(s.stepId(), s.action(), s.reason(), status, s.subSteps()));
        saver.save(steps());
    }

    synchronized void markStep(String stepId, RunStatus status) {
        for (int i = 0; i < steps.size(); i++) {
            StepRecord s = steps.get(i);
            if (s.stepId().equals(stepId)) {
                steps.set(i, new StepRecord(s.stepId(), s.action(), s.reason(), status, s.subSteps()));
            }
        }
        saver.save(steps());
    }

    /** Runs one sub-step: RUNNING while it runs, then SUCCESS or FAILED with its log line. */
    <R extends AgentResult> AgentCalls.Outcome<R> run(String name, Supplier<AgentCalls.Outcome<R>> work) {
        OffsetDateTime started = OffsetDateTime.now(clock);
        update(new SubStep(name, RunStatus.RUNNING, started, null, List.of()), false);
        AgentCalls.Outcome<R> outcome;
        try {
            outcome = work.get();
        } catch (RuntimeException e) {
            outcome = AgentCalls.Outcome.failed(e.getMessage());
        }
        if (Thread.currentThread().isInterrupted()) {
            // the server is stopping and cut the wait short: the sub-step stays RUNNING, and the next start fails it
            // with that reason instead of recording what the interrupted wait said
            return outcome;
        }
        update(new SubStep(name, outcome.ok() ? RunStatus.SUCCESS : RunStatus.FAILED, started, OffsetDateTime.now(clock),
                List.of((outcome.jid() == null ? "" : "job " + outcome.jid() + ": ") + outcome.text())), true);
        return outcome;
    }

    /** A sub-step decided on the server (port allocation): its log line and result. */
    void note(String name, boolean ok, String line) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        update(new SubStep(name, ok ? RunStatus.SUCCESS : RunStatus.FAILED, now, now, List.of(line)), false);
    }

    private synchronized void update(SubStep sub, boolean replaceLast) {
        StepRecord s = steps.get(current);
        List<SubStep> subs = new ArrayList<>(s.subSteps());
        if (replaceLast && !subs.isEmpty() && subs.getLast().name().equals(sub.name()) && subs.getLast().status() == RunStatus.RUNNING) {
            subs.set(subs.size() - 1, sub);
        } else {
            subs.add(sub);
        }
        steps.set(current, new StepRecord(s.stepId(), s.action(), s.reason(), s.status(), List.copyOf(subs)));
        saver.save(steps());
    }
}
