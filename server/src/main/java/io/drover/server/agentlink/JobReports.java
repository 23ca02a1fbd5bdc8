package io.drover.server.agentlink;

import io.drover.model.jobs.AgentJobState;
import io.drover.transport.envelope.JobReturn;

/** What the agent link hands the job lifecycle: agents' returns and their reports of how far a job got. */
public interface JobReports {
    /**
     * Stores a return once, answering only after it is committed; the reply value for the agent.
     *
     * @throws io.drover.transport.master.RequestDeferred when it could not be stored: the agent sends it again
     */
    boolean onReturn(String agentId, JobReturn ret);

    /** An agent received or started a job it was sent. */
    void onAgentState(String agentId, String jid, AgentJobState state);
}
