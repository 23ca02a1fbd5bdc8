package io.drover.model.packages;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What enabling or upgrading an addon does to one addon in install order: INSTALL it, UPGRADE it to another version, or
 * RECONFIGURE it (same version, new parameters). Spelled in lower case in the API.
 */
public enum AddonStepAction {
    INSTALL, UPGRADE, RECONFIGURE;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static AddonStepAction ofWire(String text) {
        for (AddonStepAction action : values()) {
            if (action.wire().equals(text)) {
                return action;
            }
        }
        throw new IllegalArgumentException("unknown addon step action '" + text + "' (expected install, upgrade or reconfigure)");
    }
}
