package io.drover.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.ManualClock;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthFailuresTest {
    /** A clock the test moves by hand. */
    final ManualClock clock = new ManualClock(60_000L * 1_000 + 15_000); // 15 s into a minute
    final AuthFailures failures = new AuthFailures(3, clock);

    @Test
    void aSourcePastTheLimitWaitsUntilTheMinuteIsOver() {
        failures.failed("10.0.0.1");
        failures.failed("10.0.0.1");
        assertThat(failures.retryAfterSeconds("10.0.0.1")).isZero();
        failures.failed("10.0.0.1");
        assertThat(failures.retryAfterSeconds("10.0.0.1")).isEqualTo(45);
        assertThat(failures.retryAfterSeconds("10.0.0.2")).as("other sources are not held").isZero();
        clock.millis += 44_000;
        assertThat(failures.retryAfterSeconds("10.0.0.1")).isEqualTo(1);
        clock.millis += 1_000;
        assertThat(failures.retryAfterSeconds("10.0.0.1")).as("a new minute").isZero();
    }

    @Test
    void endedMinutesAreDrainedOncePerSourceWithTheirCounts() {
        for (int i = 0; i < 5; i++) {
            failures.failed("10.0.0.1");
        }
        failures.failed("10.0.0.2");
        assertThat(failures.drainEnded()).as("the minute is still running").isEmpty();
        clock.millis += 60_000;
        failures.failed("10.0.0.1"); // replaces its ended window before the drain
        assertThat(failures.drainEnded()).isEqualTo(Map.of("10.0.0.1", 5, "10.0.0.2", 1));
        assertThat(failures.drainEnded()).isEmpty();
        clock.millis += 60_000;
        assertThat(failures.drainEnded()).isEqualTo(Map.of("10.0.0.1", 1));
    }

    @Test
    void sourcesPastTheLimitOfTrackedOnesShareOneCount() {
        for (int i = 0; i < AuthFailures.MAX_SOURCES + 500; i++) {
            failures.failed("source-" + i);
        }
        failures.failed("source-again");
        failures.failed("source-again");
        assertThat(failures.retryAfterSeconds("never-seen")).as("the shared count is past the limit").isPositive();
        clock.millis += 60_000;
        Map<String, Integer> drained = failures.drainEnded();
        assertThat(drained).hasSize(AuthFailures.MAX_SOURCES + 1);
        assertThat(drained.get(AuthFailures.OTHER_SOURCES)).isEqualTo(502);
    }
}
