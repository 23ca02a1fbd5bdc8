package io.drover.model.agentupgrade;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Where one agent of a fleet upgrade is: {@link #PENDING} until its batch reaches it; then {@link #SKIPPED} (it runs the
 * version already), {@link #HANDED_OVER} (it took the package and its installer is swapping it) and at last
 * {@link #SUCCEEDED} or {@link #FAILED}; {@link #NOT_STARTED} when the rollout stopped or was cancelled before its batch.
 */
public enum UpgradeHostState {
    PENDING, SKIPPED, HANDED_OVER, SUCCEEDED, FAILED, NOT_STARTED;

    /** Whether nothing more happens to the host. */
    public boolean ended() {
        return this == SKIPPED || this == SUCCEEDED || this == FAILED || this == NOT_STARTED;
    }

    /** The name in the API and the database: {@code handed_over}. */
    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static UpgradeHostState ofWire(String text) {
        for (UpgradeHostState value : values()) {
            if (value.wire().equals(text)) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown upgrade host state '" + text + "'");
    }
}
