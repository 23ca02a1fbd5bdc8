package io.drover.model.agentinstall;

import java.time.OffsetDateTime;
import java.util.List;

/** One host of an install task: pending, running, succeeded or failed (with one line saying why), and its steps. */
public record AgentInstallHost(long id, String address, int port, String agentId, String innerIp, Long bkHostId, String prefix,
                               InstallStatus status, String error, String arch, String version, OffsetDateTime startedAt,
                               OffsetDateTime finishedAt, List<AgentInstallStep> steps) {
}
