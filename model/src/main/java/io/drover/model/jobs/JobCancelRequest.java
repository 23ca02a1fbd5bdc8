package io.drover.model.jobs;

import java.util.List;

/** {@code POST /jobs/{jid}/cancel}: the agents to stop the job on (null or empty: every agent of the job). */
public record JobCancelRequest(List<String> targets) {
}
