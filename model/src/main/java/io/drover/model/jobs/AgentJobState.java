package io.drover.model.jobs;

/**
 * Where one agent is with one job, as the server recorded it (never worked out from what is missing): each is
 * written when what it names happened.
 */
public enum AgentJobState {
    /** The job was sent to the agent. */
    PUBLISHED,
    /** The agent took the job (a Drover agent journalled it; it runs even after a restart). */
    RECEIVED,
    /** The job started a process on the agent. */
    RUNNING,
    /** The agent's return is stored. */
    RETURNED,
    /** The job's timeout passed with no return. */
    TIMED_OUT,
    /** The agent went offline before it returned. */
    AGENT_LOST,
    /** The job was cancelled on the agent: its processes were killed. */
    CANCELLED;

    /** Whether the agent may still be working on the job (a cancel reaches it). */
    public boolean open() {
        return this == PUBLISHED || this == RECEIVED || this == RUNNING || this == TIMED_OUT || this == AGENT_LOST;
    }
}
