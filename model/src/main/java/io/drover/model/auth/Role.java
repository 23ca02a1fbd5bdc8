package io.drover.model.auth;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What a token may do: viewers read, operators also change the fleet, admins also manage tokens and read the audit log. */
public enum Role {
    VIEWER, OPERATOR, ADMIN;

    public boolean atLeast(Role other) {
        return ordinal() >= other.ordinal();
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Role parse(String text) {
        for (Role role : values()) {
            if (role.wireName().equalsIgnoreCase(text)) {
                return role;
            }
        }
        throw new IllegalArgumentException("unknown role '" + text + "' (expected admin, operator or viewer)");
    }
}
