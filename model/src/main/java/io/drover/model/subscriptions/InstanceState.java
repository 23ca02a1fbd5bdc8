package io.drover.model.subscriptions;

/**
 * Where an instance of a subscription is: PENDING or RUNNING while a task works on it, FAILED when its last task failed
 * there; otherwise as its deployed copies are: NOT_DEPLOYED (none), RUNNING (all running), UNKNOWN (any unknown) or
 * STOPPED.
 */
public enum InstanceState {
    PENDING, RUNNING, FAILED, NOT_DEPLOYED, STOPPED, UNKNOWN
}
