package io.drover.model.subscriptions;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The state of a task, of one of its instances, of a step and of a sub-step. The API and the database spell
 * SUCCEEDED as NodeMan does, {@code SUCCESS}; every other state by its name.
 */
public enum RunStatus {
    PENDING, RUNNING, SUCCEEDED, FAILED, SKIPPED, REVOKED;

    /** Whether nothing more happens to it. */
    public boolean finished() {
        return this != PENDING && this != RUNNING;
    }

    @JsonValue
    public String wire() {
        return this == SUCCEEDED ? "SUCCESS" : name();
    }

    @JsonCreator
    public static RunStatus ofWire(String text) {
        for (RunStatus status : values()) {
            if (status.wire().equals(text)) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown run status '" + text
                + "' (expected PENDING, RUNNING, SUCCESS, FAILED, SKIPPED or REVOKED)");
    }
}
