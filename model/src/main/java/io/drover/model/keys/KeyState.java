package io.drover.model.keys;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** A minion key's state as salt-key shows it; spelled in lower case in the API and the database. */
public enum KeyState {
    ACCEPTED, PENDING, REJECTED, DENIED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static KeyState ofWire(String text) {
        for (KeyState state : values()) {
            if (state.wire().equals(text)) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown key state '" + text + "' (expected accepted, pending, rejected or denied)");
    }
}
