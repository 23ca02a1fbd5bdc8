package io.drover.model.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.OffsetDateTime;

/**
 * One agent's part in a job, as a page of {@code GET /jobs/{jid}/returns} lists it: its recorded state and when it
 * was recorded, and its return when one is stored (null fields otherwise).
 */
public record AgentJob(String id, AgentJobState state, OffsetDateTime stateAt,
                       @JsonInclude(content = JsonInclude.Include.ALWAYS) JobResult.Return ret) {
}
