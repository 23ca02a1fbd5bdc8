package io.drover.server.diagnosis;

/** Stops the job of a cancelled diagnosis's running operation on its agent (the job's process group). */
interface OperationKills {
    /** Kills job {@code jid} on {@code agentId} (an agent of business {@code bizId}); a line saying what the kill did. */
    String kill(String agentId, long bizId, String jid);
}
