package io.drover.model.agentupgrade;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * A fleet upgrade: {@link #RUNNING}; then {@link #SUCCEEDED} (every host upgraded or skipped), {@link #FAILED} (every
 * batch ran, some host failed; or its server stopped), {@link #STOPPED} (the failure ratio was passed: the hosts left
 * were not started) or {@link #CANCELLED} (an operator cancelled it: the batches not started were not).
 */
public enum RolloutStatus {
    RUNNING, SUCCEEDED, FAILED, STOPPED, CANCELLED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static RolloutStatus ofWire(String text) {
        for (RolloutStatus value : values()) {
            if (value.wire().equals(text)) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown upgrade status '" + text + "'");
    }
}
