package io.drover.server.jobs;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Salt job ids: the UTC time as 20 digits ({@code yyyyMMddHHmmssSSSSSS}), strictly increasing per server. */
public final class JobIds {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSSSSS");
    private LocalDateTime last = LocalDateTime.MIN;

    public synchronized String next() {
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC).withNano(LocalDateTime.now(ZoneOffset.UTC).getNano() / 1000 * 1000);
        if (!now.isAfter(last)) {
            now = last.plusNanos(1000);
        }
        last = now;
        return FORMAT.format(now);
    }
}
