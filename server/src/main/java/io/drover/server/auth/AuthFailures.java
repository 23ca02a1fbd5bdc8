package io.drover.server.auth;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Failed authentications counted per source address in one-minute windows: past {@code limitPerMinute} failures
 * a source must wait for the next minute (429 with Retry-After), and the audit log gets one row per source and
 * minute instead of one per request, so that a flood of bad tokens can grow neither the log nor the work done.
 * At most {@link #MAX_SOURCES} sources are told apart in a minute; the rest share one count.
 */
public final class AuthFailures {
    static final int MAX_SOURCES = 10_000;
    static final String OTHER_SOURCES = "other sources";

    private final int limitPerMinute;
    private final Clock clock;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();
    /** Counts of minutes that ended and were replaced before {@link #drainEnded()} took them. */
    private final Map<String, Integer> ended = new ConcurrentHashMap<>();

    private record Window(long minute, AtomicInteger failures) {
    }

    public AuthFailures(int limitPerMinute, Clock clock) {
        this.limitPerMinute = limitPerMinute;
        this.clock = clock;
    }

    private long minute() {
        return clock.millis() / 60_000;
    }

    /** Seconds until {@code source} may try again: 0 unless it failed more than the limit this minute. */
    public long retryAfterSeconds(String source) {
        Window w = windows.get(windows.containsKey(source) ? source : OTHER_SOURCES);
        if (w == null || w.minute() != minute() || w.failures().get() < limitPerMinute) {
            return 0;
        }
        return Math.max(1, 60 - (clock.millis() / 1000) % 60);
    }

    /** Counts one failed authentication from {@code source}. */
    public void failed(String source) {
        long now = minute();
        String key = windows.containsKey(source) || windows.size() < MAX_SOURCES ? source : OTHER_SOURCES;
        windows.compute(key, (k, w) -> {
            if (w != null && w.minute() == now) {
                return w;
            }
            if (w != null) {
                ended.merge(k, w.failures().get(), Integer::sum);
            }
            return new Window(now, new AtomicInteger());
        }).failures().incrementAndGet();
    }

    /** Removes and returns the failures of minutes that have ended, source → count, for the audit log. */
    public Map<String, Integer> drainEnded() {
        long now = minute();
        Map<String, Integer> out = new LinkedHashMap<>();
        windows.forEach((source, w) -> {
            if (w.minute() < now && windows.remove(source, w)) {
                out.merge(source, w.failures().get(), Integer::sum);
            }
        });
        for (String source : ended.keySet()) {
            Integer count = ended.remove(source);
            if (count != null) {
                out.merge(source, count, Integer::sum);
            }
        }
        return out;
    }
}
