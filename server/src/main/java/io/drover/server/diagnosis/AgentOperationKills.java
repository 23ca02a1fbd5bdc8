package io.drover.server.diagnosis;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import java.time.Duration;
import java.util.Set;

/** Kills through the agent's {@code saltutil.kill_job}: the job's process group (SIGTERM, then SIGKILL after a grace). */
final class AgentOperationKills implements OperationKills {
    /** How long the canceller waits for the agent to answer the kill. */
    static final Duration KILL_TIMEOUT = Duration.ofSeconds(15);

    private final AgentCalls agents;

    AgentOperationKills(AgentCalls agents) {
        this.agents = agents;
    }

    @Override
    public String kill(String agentId, long bizId, String jid) {
        AgentCalls.Outcome<AgentResult.JobKilled> outcome = agents.forBusinesses(Set.of(bizId))
                .call(agentId, new AgentCall.KillJob(jid), CallOptions.within(KILL_TIMEOUT));
        if (!outcome.ok()) {
            return "the kill of job " + jid + " on agent " + agentId + " failed: " + outcome.text();
        }
        AgentResult.JobKilled killed = outcome.result();
        return killed.found() ? "job " + jid + " killed on agent " + agentId + " (" + killed.signalled() + " process(es) signalled)"
                : "job " + jid + " was no longer running on agent " + agentId;
    }
}
