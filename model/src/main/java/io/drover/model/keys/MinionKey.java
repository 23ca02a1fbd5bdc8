package io.drover.model.keys;

import java.time.OffsetDateTime;

/** A minion key as salt-key shows it: state is accepted, pending, rejected or denied. */
public record MinionKey(String id, KeyState state, String fingerprint, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
}
