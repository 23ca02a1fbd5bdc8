package io.drover.model.agentinstall;

import java.time.OffsetDateTime;
import java.util.List;

/** One step of a host's install: connect, host_key, detect, upload, unpack, install, sign_in, link. */
public record AgentInstallStep(String name, InstallStatus status, OffsetDateTime startedAt, OffsetDateTime finishedAt,
                               List<String> log) {
}
