package io.drover.core.subscriptions;

import java.time.Duration;
import java.time.Instant;

/**
 * When to re-plan after a burst of changes: {@code quiet} after the last change (so a bulk import causes one run), but
 * never later than {@code maxDelay} after the first change not yet acted on, so that a steady trickle of changes (an
 * agent firing an event every few seconds, say) cannot postpone the re-plan forever. Not thread-safe: the caller
 * serialises.
 */
public final class ReplanDebounce {
    private final Duration quiet;
    private final Duration maxDelay;
    /** The first change since the last run; null when nothing waits. */
    private Instant firstChange;

    public ReplanDebounce(Duration quiet, Duration maxDelay) {
        if (quiet.isNegative() || maxDelay.isNegative()) {
            throw new IllegalArgumentException("the debounce and its maximum delay must not be negative");
        }
        this.quiet = quiet;
        this.maxDelay = maxDelay.compareTo(quiet) < 0 ? quiet : maxDelay;
    }

    /** A change at {@code now}: when the re-plan is due. */
    public Instant changed(Instant now) {
        if (firstChange == null) {
            firstChange = now;
        }
        Instant afterQuiet = now.plus(quiet);
        Instant latest = firstChange.plus(maxDelay);
        return afterQuiet.isBefore(latest) ? afterQuiet : latest;
    }

    /** The re-plan ran (or was given up): the next change starts a new burst. */
    public void fired() {
        firstChange = null;
    }
}
