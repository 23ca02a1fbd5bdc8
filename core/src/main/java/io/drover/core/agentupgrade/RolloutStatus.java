package io.drover.core.agentupgrade;

import java.util.Locale;

/**
 * A fleet upgrade: {@link #RUNNING}; then {@link #SUCCEEDED} (every host upgraded or skipped), {@link #FAILED} (every
 * batch ran, some host failed) or {@link #STOPPED} (the failure ratio was passed: the hosts left were not started).
 */
public enum RolloutStatus {
    RUNNING, SUCCEEDED, FAILED, STOPPED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RolloutStatus ofWire(String text) {
        return valueOf(text.toUpperCase(Locale.ROOT));
    }
}
