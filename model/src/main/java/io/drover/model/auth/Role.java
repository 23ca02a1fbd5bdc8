package io.drover.model.auth;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a token may do: viewers read, operators also change the fleet, admins also manage tokens and read the audit log.
 * {@code alerts} stands apart from that ladder: it may only post alerts (what Alertmanager's webhook needs), which
 * operators and admins may do too.
 */
public enum Role {
    VIEWER, OPERATOR, ADMIN, ALERTS;

    /** Whether a token of this role may call a route that needs {@code required}. */
    public boolean atLeast(Role required) {
        if (required == ALERTS) {
            return this == ALERTS || atLeast(OPERATOR);
        }
        return this != ALERTS && ordinal() >= required.ordinal();
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
        throw new IllegalArgumentException("unknown role '" + text + "' (expected admin, operator, viewer or alerts)");
    }
}
