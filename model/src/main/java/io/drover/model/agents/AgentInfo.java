package io.drover.model.agents;

import io.drover.model.keys.KeyState;
import java.time.OffsetDateTime;

/**
 * An agent as {@code drover agent list} shows it: its key state, the inventory host it runs on (null until it
 * is linked), whether it is online, what it reported and when it was last heard from; while it is unlinked because
 * the address it claims is another business's host or a host with another agent, that conflict; and its transport
 * mode ({@code drover}: a session key of its own; {@code salt}: the shared key; {@code salt-signed}: the shared key
 * with signed returns and events; null before it first signs in).
 */
public record AgentInfo(String id, KeyState keyState, Long bkHostId, Long bkBizId, String innerIp, boolean online,
                        String version, OffsetDateTime lastSeen, LinkConflict linkConflict, String mode) {
}
