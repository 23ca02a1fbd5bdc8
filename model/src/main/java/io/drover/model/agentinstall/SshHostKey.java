package io.drover.model.agentinstall;

import java.time.OffsetDateTime;

/** The SSH host key recorded for an address and port at the first contact of an agent install (server-wide). */
public record SshHostKey(String address, int port, String keyType, String fingerprint, OffsetDateTime firstSeen) {
}
