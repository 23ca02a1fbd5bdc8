package io.drover.model.agentupgrade;

import java.time.OffsetDateTime;

/**
 * One agent of an upgrade: its batch (from 1), architecture, the version it ran before and reports now, its state
 * (pending, skipped, handed_over, succeeded, failed, not_started), why it failed, and the upgrade log's path on the
 * host as its agent gave it.
 */
public record AgentUpgradeHost(long id, String agentId, int batch, String arch, String fromVersion, String version,
                               UpgradeHostState status, String error, String log, OffsetDateTime startedAt, OffsetDateTime finishedAt) {
}
