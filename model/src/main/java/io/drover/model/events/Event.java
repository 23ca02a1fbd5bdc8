package io.drover.model.events;

import java.time.OffsetDateTime;
import java.util.Map;

/** An event on the bus: a Salt-style tag and its data. Ids increase in the order events were written. */
public record Event(long id, String tag, OffsetDateTime time, Map<String, Object> data) {
}
