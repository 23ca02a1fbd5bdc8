package io.drover.model.agents;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Why an agent is not linked to the inventory host at the address it claims. */
public enum LinkConflictReason {
    /** The host at that address belongs to a business other than the one the agent's admission gave it. */
    OTHER_BUSINESS,
    /** The host at that address already has another agent. */
    HOST_HAS_AGENT;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static LinkConflictReason parse(String text) {
        for (LinkConflictReason reason : values()) {
            if (reason.wireName().equals(text)) {
                return reason;
            }
        }
        throw new IllegalArgumentException("unknown link conflict '" + text + "' (expected other_business or host_has_agent)");
    }
}
