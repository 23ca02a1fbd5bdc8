package io.drover.model.agentinstall;

import java.time.OffsetDateTime;
import java.util.List;

/** An install task: running until every host succeeded or failed; then succeeded, or failed when any host did. */
public record AgentInstallTask(long id, long bkBizId, InstallStatus status, String createdBy, String sshUser, String jump,
                               List<String> masters, int concurrency, OffsetDateTime createdAt,
                               OffsetDateTime finishedAt, int total, int succeeded, int failed,
                               List<AgentInstallHost> hosts) {
}
