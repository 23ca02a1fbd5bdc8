package io.drover.model.packages;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Whether an addon is enabled; spelled in lower case in the API. */
public enum AddonState {
    ENABLED, DISABLED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static AddonState ofWire(String text) {
        for (AddonState state : values()) {
            if (state.wire().equals(text)) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown addon state '" + text + "' (expected enabled or disabled)");
    }
}
