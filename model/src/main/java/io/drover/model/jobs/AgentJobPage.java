package io.drover.model.jobs;

import java.util.List;

/**
 * A page of a job's agents in id order; {@code next} is the {@code after} of the next page, null on the last one.
 */
public record AgentJobPage(String jid, List<AgentJob> agents, String next) {
    public AgentJobPage {
        agents = List.copyOf(agents);
    }
}
