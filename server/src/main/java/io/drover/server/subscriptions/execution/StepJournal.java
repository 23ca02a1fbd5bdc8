package io.drover.server.subscriptions.execution;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.model.subscriptions.TaskInfo.SubStep;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The record of one instance in a task: its steps and their sub-steps with status, times, log lines and the job each
 * agent call went out as. Every change is written through {@link Saver} at once, so a reader (and a server that takes
 * the task over) sees the run as it is.
 *
 * <p>A step that was running when its server stopped is replayed: its pipeline runs again from the start, and each
 * sub-step the record already holds is answered by {@link CallOptions#resuming} under its recorded job id (the stored
 * return, or the same job sent again, which an agent runs at most once) instead of a new call. Pipelines are
 * deterministic for the same inputs, so the replay meets the recorded sub-steps in order; the first one that differs
 * ends the replay and the rest run as new calls.
 */
final class StepJournal {
    /** Persists the instance's record. */
    interface Saver {
        void save(List<StepRecord> steps);
    }

    private final List<StepRecord> steps = new ArrayList<>();
    private final Saver saver;
    private final AgentCalls agents;
    private final Clock clock;
    private int current = -1;
    /** The sub-steps a resumed step recorded before its server stopped, not yet met again. */
    private List<SubStep> replay = List.of();

    /** @param recorded the steps as planned, or as a stopped server left them */
    StepJournal(List<StepRecord> recorded, Saver saver, AgentCalls agents, Clock clock) {
        this.steps.addAll(recorded);
        this.saver = saver;
        this.agents = agents;
        this.clock = clock;
    }

    synchronized List<StepRecord> steps() {
        return List.copyOf(steps);
    }

    /** The step's status as recorded (PENDING for a step not started yet). */
    synchronized RunStatus status(String stepId) {
        return steps.stream().filter(s -> s.stepId().equals(stepId)).map(StepRecord::status).findFirst()
                .orElse(RunStatus.PENDING);
    }

    synchronized void beginStep(String stepId) {
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).stepId().equals(stepId)) {
                current = i;
                StepRecord s = steps.get(i);
                replay = s.subSteps() == null ? List.of() : new ArrayList<>(s.subSteps());
                steps.set(i, new StepRecord(s.stepId(), s.action(), s.reason(), RunStatus.RUNNING, List.of()));
                saver.save(steps());
                return;
            }
        }
    }

    synchronized void endStep(RunStatus status) {
        StepRecord s = steps.get(current);
        steps.set(current, new StepRecord(s.stepId(), s.action(), s.reason(), status, s.subSteps()));
        replay = List.of();
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

    /** Runs one sub-step, a call on an agent: RUNNING (with its job id) while it runs, then SUCCEEDED or FAILED with its log line. */
    <R extends AgentResult> AgentCalls.Outcome<R> call(String name, String agentId, AgentCall<R> call) {
        return call(name, agentId, call, call);
    }

    /** As {@link #call(String, String, AgentCall)}; a call that carries a secret is recorded as {@code shown}. */
    <R extends AgentResult> AgentCalls.Outcome<R> call(String name, String agentId, AgentCall<R> call, AgentCall<R> shown) {
        SubStep earlier = replayed(name);
        OffsetDateTime started = earlier == null ? OffsetDateTime.now(clock) : earlier.startedAt();
        AgentCalls.Outcome<R> outcome;
        try {
            if (earlier != null && earlier.jid() != null) {
                update(new SubStep(name, RunStatus.RUNNING, started, null, List.of(), earlier.jid()), false);
                outcome = agents.call(agentId, call, CallOptions.defaults().resuming(earlier.jid()));
            } else {
                // Recorded with its job id before the job goes out, so a server that takes the task over resumes the
                // same job; a sub-step whose job was never sent appears once it ended (FAILED).
                java.util.function.Consumer<String> sending =
                        jid -> update(new SubStep(name, RunStatus.RUNNING, started, null, List.of(), jid), true);
                CallOptions options = CallOptions.defaults().withSending(sending);
                outcome = agents.call(agentId, call, call.equals(shown) ? options : options.withShown(shown));
            }
        } catch (RuntimeException e) {
            outcome = AgentCalls.Outcome.failed(e.getMessage());
        }
        if (Thread.currentThread().isInterrupted()) {
            // the server is stopping and cut the wait short: the sub-step stays RUNNING, and the server that takes
            // the task over resumes it
            return outcome;
        }
        update(new SubStep(name, outcome.ok() ? RunStatus.SUCCEEDED : RunStatus.FAILED, started, OffsetDateTime.now(clock),
                List.of((outcome.jid() == null ? "" : "job " + outcome.jid() + ": ") + outcome.text()), outcome.jid()), true);
        return outcome;
    }

    /** A sub-step decided on the server (port allocation): its log line and result. */
    void note(String name, boolean ok, String line) {
        replayed(name);
        OffsetDateTime now = OffsetDateTime.now(clock);
        update(new SubStep(name, ok ? RunStatus.SUCCEEDED : RunStatus.FAILED, now, now, List.of(line), null), false);
    }

    /** The recorded sub-step this one replays, or null (and no more replay) when the record holds another. */
    private synchronized SubStep replayed(String name) {
        if (replay.isEmpty()) {
            return null;
        }
        SubStep next = replay.removeFirst();
        if (!next.name().equals(name)) {
            replay = List.of();
            return null;
        }
        return next;
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
