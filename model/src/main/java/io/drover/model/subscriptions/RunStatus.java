package io.drover.model.subscriptions;

/** The state of a task, of one of its instances, of a step and of a sub-step. */
public enum RunStatus {
    PENDING, RUNNING, SUCCESS, FAILED, SKIPPED, REVOKED;

    /** Whether nothing more happens to it. */
    public boolean finished() {
        return this != PENDING && this != RUNNING;
    }
}
