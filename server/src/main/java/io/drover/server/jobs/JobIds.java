package io.drover.server.jobs;

import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** Salt job ids: the UTC time as 20 digits ({@code yyyyMMddHHmmssSSSSSS}), strictly increasing per server. */
public final class JobIds {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSSSSS");
    private final Clock clock;
    private LocalDateTime last = LocalDateTime.MIN;

    public JobIds(Clock clock) {
        this.clock = clock;
    }

    public synchronized String next() {
        LocalDateTime now = LocalDateTime.ofInstant(clock.instant(), ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        if (!now.isAfter(last)) {
            now = last.plusNanos(1000);
        }
        last = now;
        return FORMAT.format(now);
    }
}
