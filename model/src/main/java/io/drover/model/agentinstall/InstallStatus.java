package io.drover.model.agentinstall;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Where an install task, one of its hosts or one step of a host is: PENDING (hosts only) until it starts, RUNNING, then
 * SUCCEEDED or FAILED. Spelled in lower case in the API and the database.
 */
public enum InstallStatus {
    PENDING, RUNNING, SUCCEEDED, FAILED;

    /** Whether nothing more happens to it. */
    public boolean ended() {
        return this == SUCCEEDED || this == FAILED;
    }

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static InstallStatus ofWire(String text) {
        for (InstallStatus status : values()) {
            if (status.wire().equals(text)) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown install status '" + text + "' (expected pending, running, succeeded or failed)");
    }
}
