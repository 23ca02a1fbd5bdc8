package io.drover.model.subscriptions;

/**
 * What a change to a subscription started: the subscription and the task, or ({@code taskId} null) the note that says
 * why there is none.
 */
public record SubscriptionStarted(SubscriptionInfo subscription, Long taskId, String note) {

    /** The change and its task; with no task, the note says that every instance is as planned. */
    public static SubscriptionStarted of(SubscriptionInfo subscription, Long taskId) {
        return new SubscriptionStarted(subscription, taskId, taskId == null ? "nothing to do: every instance is as planned" : null);
    }
}
