package io.drover.model.subscriptions;

import java.util.Map;

/** A subscription's instances counted by status, and its deployed copies counted by "plugin version". */
public record SubscriptionStatistics(long subscriptionId, int instances, Map<String, Integer> byStatus,
                                     Map<String, Integer> byVersion) {
}
