package io.drover.model.agentupgrade;

/**
 * Upgrade the agents a target names ({@code tgt}, {@code tgtType} as {@code drover run}: glob by default), all on hosts
 * of business {@code bkBizId} (default: the one business they are all in), to agent package {@code version}: {@code batchSize} agents at a time (1 to 1000, default 10); the
 * rollout stops before its next batch once {@code failed / attempted > maxFailureRatio} (0 to 1, default 0: the first
 * failure stops it); each agent has {@code waitSeconds} (10 to 3600, default 180) to come back with the version. An agent that runs a
 * newer version fails unless {@code allowDowngrade} (known per agent only when its turn comes).
 */
public record AgentUpgradeRequest(String tgt, String tgtType, String version, Long bkBizId, Integer batchSize,
                                  Double maxFailureRatio, Integer waitSeconds, Boolean allowDowngrade) {
}
