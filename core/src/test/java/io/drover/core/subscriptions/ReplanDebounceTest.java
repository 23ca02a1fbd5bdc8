package io.drover.core.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplanDebounceTest {
    static final Instant T0 = Instant.parse("2026-11-27T08:00:00Z");

    @Test
    void aSingleChangeWaitsTheQuietTime() {
        ReplanDebounce d = new ReplanDebounce(Duration.ofSeconds(10), Duration.ofSeconds(60));
        assertThat(d.changed(T0)).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void aBurstIsOneRunAfterItsLastChange() {
        ReplanDebounce d = new ReplanDebounce(Duration.ofSeconds(10), Duration.ofSeconds(60));
        d.changed(T0);
        d.changed(T0.plusSeconds(3));
        assertThat(d.changed(T0.plusSeconds(7))).isEqualTo(T0.plusSeconds(17));
    }

    @Test
    void aTrickleOfChangesCannotPostponeTheRunPastTheMaximumDelay() {
        ReplanDebounce d = new ReplanDebounce(Duration.ofSeconds(10), Duration.ofSeconds(60));
        Instant due = null;
        for (int s = 0; s <= 120; s += 9) { // one change every 9 s, each inside the quiet time of the one before
            due = d.changed(T0.plusSeconds(s));
            assertThat(due).isBeforeOrEqualTo(T0.plusSeconds(60));
        }
        assertThat(due).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void afterARunTheNextChangeStartsANewBurst() {
        ReplanDebounce d = new ReplanDebounce(Duration.ofSeconds(10), Duration.ofSeconds(60));
        d.changed(T0);
        d.changed(T0.plusSeconds(55));
        d.fired();
        assertThat(d.changed(T0.plusSeconds(61))).isEqualTo(T0.plusSeconds(71));
    }

    @Test
    void aMaximumBelowTheQuietTimeMeansTheQuietTime() {
        ReplanDebounce d = new ReplanDebounce(Duration.ofSeconds(10), Duration.ofSeconds(2));
        d.changed(T0);
        assertThat(d.changed(T0.plusSeconds(1))).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void zeroQuietTimeRunsAtOnce() {
        ReplanDebounce d = new ReplanDebounce(Duration.ZERO, Duration.ZERO);
        assertThat(d.changed(T0)).isEqualTo(T0);
    }

    @Test
    void negativeDurationsAreRefused() {
        assertThatThrownBy(() -> new ReplanDebounce(Duration.ofSeconds(-1), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReplanDebounce(Duration.ZERO, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
