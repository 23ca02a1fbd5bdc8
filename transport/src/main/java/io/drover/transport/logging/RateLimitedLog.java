package io.drover.transport.logging;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Warnings about what peers send, at most one per kind every ten seconds, each with the count of those not logged:
 * a peer that floods bad input must not flood the log (or the disk under it).
 */
public final class RateLimitedLog {
    static final long EVERY_NANOS = 10_000_000_000L;

    private final Logger log;
    private final LongSupplier nanos;
    private final Map<String, long[]> lastLogged = new ConcurrentHashMap<>();

    public RateLimitedLog(Logger log) {
        this(log, System::nanoTime);
    }

    RateLimitedLog(Logger log, LongSupplier nanos) {
        this.log = log;
        this.nanos = nanos;
    }

    /** Logs {@code format} with {@code args} at WARN unless a warning of this kind was logged in the last ten seconds. */
    public void warn(String kind, String format, Object... args) {
        long now = nanos.getAsLong();
        long[] state = lastLogged.computeIfAbsent(kind, k -> new long[] {now - EVERY_NANOS - 1, 0});
        long suppressed;
        synchronized (state) {
            if (now - state[0] <= EVERY_NANOS) {
                state[1]++;
                return;
            }
            suppressed = state[1];
            state[0] = now;
            state[1] = 0;
        }
        log.warn(suppressed > 0 ? format + " (" + suppressed + " more like it not logged)" : format, args);
    }

    /**
     * A value a peer sent, fit for a log line: quoted, cut to {@code max} characters, control characters (newlines,
     * NUL, …) shown as '?' so that a peer cannot forge log lines.
     */
    public static String shown(String value, int max) {
        if (value == null) {
            return "(none)";
        }
        String cut = value.length() > max ? value.substring(0, max) + "…" : value;
        return "'" + cut.codePoints().map(c -> Character.isISOControl(c) || c == 0x2028 || c == 0x2029 ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append) + "'";
    }
}
