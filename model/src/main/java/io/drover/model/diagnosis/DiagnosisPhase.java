package io.drover.model.diagnosis;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * KubeDiag's phases of a diagnosis (Unknown unused), and CANCELLED: stopped by a user, which KubeDiag cannot do. In the
 * API a phase is spelled as KubeDiag spells it ({@code Succeeded}); the database keeps the constant's name.
 */
public enum DiagnosisPhase {
    PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED;

    /** Whether nothing more happens to the diagnosis. */
    public boolean ended() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    /** KubeDiag's spelling: {@code Succeeded}. */
    @JsonValue
    public String wire() {
        return name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
    }

    /** A phase by any case of its name ({@code Running}, {@code running}, {@code RUNNING}). */
    @JsonCreator
    public static DiagnosisPhase parse(String text) {
        for (DiagnosisPhase phase : values()) {
            if (phase.name().equalsIgnoreCase(text)) {
                return phase;
            }
        }
        throw new IllegalArgumentException("unknown phase '" + text + "' (expected Pending, Running, Succeeded, Failed or Cancelled)");
    }
}
