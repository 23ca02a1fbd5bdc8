package io.drover.model.subscriptions;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A run of a subscription. {@code counts}: instances per status; {@code instances} are filled in by
 * {@code GET /tasks/{id}} (each with its steps, sub-steps and log lines).
 */
public record TaskInfo(long id, long subscriptionId, RunStatus status, String trigger, String actor,
                       OffsetDateTime createdAt, OffsetDateTime startedAt, OffsetDateTime finishedAt, String error,
                       Map<String, Integer> counts, List<TaskInstance> instances) {

    public record TaskInstance(String instanceId, Long bkHostId, RunStatus status, String error, OffsetDateTime startedAt,
                               OffsetDateTime finishedAt, List<StepRecord> steps) {
    }

    public record StepRecord(String stepId, ChangeAction action, String reason, RunStatus status, List<SubStep> subSteps) {
    }

    /** One agent call of a step (or a decision the server made); {@code jid}: the job the call went out as. */
    public record SubStep(String name, RunStatus status, OffsetDateTime startedAt, OffsetDateTime finishedAt, List<String> log,
                          String jid) {
    }
}
