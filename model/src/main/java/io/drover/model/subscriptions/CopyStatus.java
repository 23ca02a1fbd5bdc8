package io.drover.model.subscriptions;

/** Deployed status of one copy of a step on one host, as the last run left it. */
public enum CopyStatus {
    RUNNING, STOPPED, UNKNOWN
}
