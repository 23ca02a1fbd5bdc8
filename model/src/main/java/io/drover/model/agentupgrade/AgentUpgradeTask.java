package io.drover.model.agentupgrade;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * A fleet upgrade: running; then succeeded (every agent upgraded or already at the version), failed (every batch ran,
 * some agent failed; or the server running it stopped), stopped (the failure ratio was passed: the agents left were not
 * started) or cancelled (the batches not started were not). {@code allowDowngrade}: agents that run a newer version
 * are taken down to this one (else they fail).
 */
public record AgentUpgradeTask(long id, long bkBizId, RolloutStatus status, String version, String tgt, String tgtType,
                               int batchSize, double maxFailureRatio, int waitSeconds, boolean allowDowngrade, String createdBy,
                               OffsetDateTime createdAt, OffsetDateTime finishedAt, int total, int succeeded, int skipped,
                               int failed, int notStarted, List<AgentUpgradeHost> hosts) {
}
