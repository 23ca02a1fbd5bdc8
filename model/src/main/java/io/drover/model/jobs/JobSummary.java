package io.drover.model.jobs;

import java.time.OffsetDateTime;
import java.util.Map;

/** A job in {@code GET /jobs}: what ran where, and how many of its agents are in each recorded state. */
public record JobSummary(String jid, String fun, String tgt, String tgtType, String actor, OffsetDateTime createdAt,
                         int agents, Map<AgentJobState, Integer> states) {
}
