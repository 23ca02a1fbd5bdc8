package io.drover.model.agents;

import java.time.OffsetDateTime;

/**
 * An agent package the server hands out to hosts: {@code fileName} is {@code drover-agent-<version>-linux-<arch>.tar.gz},
 * {@code sha256} its hex digest. {@code uploadedBy} is the token that uploaded it, or {@code system:build} for a package
 * the server registered from its distribution at start.
 */
public record AgentPackageInfo(String version, String os, String arch, String fileName, String sha256, long sizeBytes,
                               OffsetDateTime uploadedAt, String uploadedBy) {
}
