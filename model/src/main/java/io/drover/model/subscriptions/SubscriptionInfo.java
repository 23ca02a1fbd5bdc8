package io.drover.model.subscriptions;

import java.time.OffsetDateTime;

/** A stored subscription: its id, spec and whether it is enabled. */
public record SubscriptionInfo(long id, String name, long bkBizId, String objectType, String nodeType, boolean enabled,
                               SubscriptionSpec spec, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
}
