package io.drover.core.plans;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A log message a plan sends to its originator through {@code api.log*}, in the specification's format. */
public record LogMessage(String id, String sourceId, Level level, String body, Instant time, String tag) {
    public enum Level {
        DEBUG, INFO, WARNING, ERROR, FATAL;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Map<String, Object> toWire() {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("FormatVersion", "2.0.0");
        wire.put("ID", id);
        if (sourceId != null) {
            wire.put("SourceID", sourceId);
        }
        wire.put("Level", level.wire());
        wire.put("Body", body);
        wire.put("Action", "log");
        wire.put("Time", time.truncatedTo(ChronoUnit.MILLIS).toString());
        if (tag != null) {
            wire.put("Tag", tag);
        }
        return wire;
    }
}
