package io.drover.core.agentupgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.UpgradeHostState;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RolloutTest {
    static final List<String> FIVE = List.of("a", "b", "c", "d", "e");

    @Test
    void cutsHostsIntoBatchesInOrderWithASmallerLastOne() {
        assertThat(Rollout.cut(FIVE, 2)).containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
        assertThat(Rollout.cut(FIVE, 5)).containsExactly(FIVE);
        assertThat(Rollout.cut(FIVE, 1000)).containsExactly(FIVE);
        assertThat(Rollout.cut(FIVE, 1)).hasSize(5);
        assertThat(Rollout.cut(List.of(), 3)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
            "0, 0, 0.0, false", // nothing attempted: never
            "0, 4, 0.0, false",
            "1, 4, 0.0, true", // ratio 0: the first failure stops
            "1, 4, 0.25, false", // equal to the ratio: goes on
            "2, 4, 0.25, true",
            "1, 3, 0.3, true",
            "4, 4, 1.0, false", // ratio 1: never stops
            "3, 10, 0.5, false",
            "6, 10, 0.5, true"})
    void theRatioIsPassedOnlyWhenFailedOverAttemptedExceedsIt(int failed, int attempted, double ratio, boolean passes) {
        assertThat(Rollout.passes(failed, attempted, ratio)).isEqualTo(passes);
    }

    @Test
    void runsEveryBatchWhenNothingFails() {
        Rollout r = new Rollout(FIVE, 2, 0);
        assertThat(r.batchCount()).isEqualTo(3);
        assertThat(r.status()).isEqualTo(RolloutStatus.RUNNING);
        for (List<String> batch : List.of(List.of("a", "b"), List.of("c", "d"), List.of("e"))) {
            assertThat(r.nextBatch()).contains(batch);
            batch.forEach(h -> {
                r.record(h, UpgradeHostState.HANDED_OVER);
                assertThat(r.status()).isEqualTo(RolloutStatus.RUNNING);
                r.record(h, UpgradeHostState.SUCCEEDED);
            });
        }
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.status()).isEqualTo(RolloutStatus.SUCCEEDED);
        assertThat(r.count(UpgradeHostState.SUCCEEDED)).isEqualTo(5);
        assertThat(r.stopped()).isFalse();
    }

    @Test
    void aCancelLetsTheBatchUnderWayEndStartsNoOtherAndIsCancelledOnceItEnded() {
        Rollout r = new Rollout(FIVE, 2, 1);
        r.nextBatch();
        r.record("a", UpgradeHostState.HANDED_OVER);
        r.cancel();
        assertThat(r.states()).containsExactly(java.util.Map.entry("a", UpgradeHostState.HANDED_OVER), java.util.Map.entry("b", UpgradeHostState.PENDING),
                java.util.Map.entry("c", UpgradeHostState.NOT_STARTED), java.util.Map.entry("d", UpgradeHostState.NOT_STARTED),
                java.util.Map.entry("e", UpgradeHostState.NOT_STARTED));
        assertThat(r.status()).as("its batch runs on").isEqualTo(RolloutStatus.RUNNING);
        r.record("a", UpgradeHostState.SUCCEEDED);
        r.record("b", UpgradeHostState.FAILED);
        assertThat(r.status()).isEqualTo(RolloutStatus.CANCELLED);
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.stopped()).isFalse();
    }

    @Test
    void aCancelAfterTheLastBatchStartedOrAStopChangesNothing() {
        Rollout last = new Rollout(List.of("a"), 1, 0);
        last.nextBatch();
        last.cancel();
        last.record("a", UpgradeHostState.SKIPPED);
        assertThat(last.status()).isEqualTo(RolloutStatus.SUCCEEDED);
        Rollout stopped = new Rollout(FIVE, 1, 0);
        stopped.nextBatch();
        stopped.record("a", UpgradeHostState.FAILED);
        assertThat(stopped.nextBatch()).isEmpty();
        stopped.cancel();
        assertThat(stopped.status()).isEqualTo(RolloutStatus.STOPPED);
    }

    @Test
    void aFailurePastTheRatioStopsBeforeTheNextBatchAndLeavesTheRestNotStarted() {
        Rollout r = new Rollout(FIVE, 2, 0.4);
        r.nextBatch();
        r.record("a", UpgradeHostState.HANDED_OVER);
        r.record("a", UpgradeHostState.SUCCEEDED);
        r.record("b", UpgradeHostState.FAILED); // 1 of 2 = 0.5 > 0.4
        assertThat(r.status()).isEqualTo(RolloutStatus.RUNNING);
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.stopped()).isTrue();
        assertThat(r.status()).isEqualTo(RolloutStatus.STOPPED);
        assertThat(r.states()).containsExactly(java.util.Map.entry("a", UpgradeHostState.SUCCEEDED), java.util.Map.entry("b", UpgradeHostState.FAILED),
                java.util.Map.entry("c", UpgradeHostState.NOT_STARTED), java.util.Map.entry("d", UpgradeHostState.NOT_STARTED),
                java.util.Map.entry("e", UpgradeHostState.NOT_STARTED));
        assertThat(r.nextBatch()).isEmpty();
    }

    @Test
    void failuresWithinTheRatioGoOnAndTheRatioCountsEveryBatchSoFar() {
        Rollout r = new Rollout(FIVE, 2, 0.5);
        r.nextBatch();
        r.record("a", UpgradeHostState.FAILED);
        r.record("b", UpgradeHostState.HANDED_OVER);
        r.record("b", UpgradeHostState.SUCCEEDED); // 1/2 = 0.5: goes on
        assertThat(r.nextBatch()).contains(List.of("c", "d"));
        r.record("c", UpgradeHostState.FAILED);
        r.record("d", UpgradeHostState.FAILED); // 3/4 > 0.5
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.state("e")).isEqualTo(UpgradeHostState.NOT_STARTED);
        assertThat(r.status()).isEqualTo(RolloutStatus.STOPPED);
    }

    @Test
    void skippedHostsAreNotAttempted() {
        Rollout r = new Rollout(FIVE, 2, 0.5);
        r.nextBatch();
        r.record("a", UpgradeHostState.SKIPPED);
        r.record("b", UpgradeHostState.FAILED); // 1 failed of 1 attempted: 1 > 0.5
        assertThat(r.attempted()).isEqualTo(1);
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.status()).isEqualTo(RolloutStatus.STOPPED);
    }

    @Test
    void aBatchOfSkippedHostsOnlyNeverStopsAndSucceeds() {
        Rollout r = new Rollout(List.of("a", "b"), 1, 0);
        r.nextBatch();
        r.record("a", UpgradeHostState.SKIPPED);
        r.nextBatch();
        r.record("b", UpgradeHostState.SKIPPED);
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.status()).isEqualTo(RolloutStatus.SUCCEEDED);
    }

    @Test
    void aFailureInTheLastBatchFailsTheRolloutWithoutStoppingIt() {
        Rollout r = new Rollout(List.of("a", "b"), 1, 0);
        r.nextBatch();
        r.record("a", UpgradeHostState.SKIPPED);
        r.nextBatch();
        r.record("b", UpgradeHostState.FAILED);
        assertThat(r.status()).isEqualTo(RolloutStatus.FAILED);
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.stopped()).isFalse();
        assertThat(r.status()).isEqualTo(RolloutStatus.FAILED);
    }

    @Test
    void ratioOneNeverStops() {
        Rollout r = new Rollout(FIVE, 1, 1);
        Optional<List<String>> batch;
        while ((batch = r.nextBatch()).isPresent()) {
            r.record(batch.get().get(0), UpgradeHostState.FAILED);
        }
        assertThat(r.count(UpgradeHostState.FAILED)).isEqualTo(5);
        assertThat(r.status()).isEqualTo(RolloutStatus.FAILED);
    }

    @Test
    void theNextBatchWaitsForEveryHostOfTheOneBefore() {
        Rollout r = new Rollout(FIVE, 2, 1);
        r.nextBatch();
        r.record("a", UpgradeHostState.HANDED_OVER);
        r.record("b", UpgradeHostState.SKIPPED);
        assertThatThrownBy(r::nextBatch).isInstanceOf(IllegalStateException.class).hasMessageContaining("not ended");
        r.record("a", UpgradeHostState.SUCCEEDED);
        assertThat(r.nextBatch()).contains(List.of("c", "d"));
    }

    @Test
    void statesOnlyMoveForwardAndOnlyWithinTheRunningBatch() {
        Rollout r = new Rollout(FIVE, 2, 1);
        assertThatThrownBy(() -> r.record("a", UpgradeHostState.FAILED)).hasMessageContaining("outside its batch");
        r.nextBatch();
        assertThatThrownBy(() -> r.record("c", UpgradeHostState.FAILED)).hasMessageContaining("outside its batch");
        assertThatThrownBy(() -> r.record("a", UpgradeHostState.SUCCEEDED)).hasMessageContaining("PENDING to SUCCEEDED");
        assertThatThrownBy(() -> r.record("a", UpgradeHostState.NOT_STARTED)).hasMessageContaining("PENDING to NOT_STARTED");
        assertThatThrownBy(() -> r.record("a", UpgradeHostState.PENDING)).hasMessageContaining("PENDING to PENDING");
        r.record("a", UpgradeHostState.FAILED);
        assertThatThrownBy(() -> r.record("a", UpgradeHostState.SUCCEEDED)).hasMessageContaining("FAILED to SUCCEEDED");
        r.record("b", UpgradeHostState.SKIPPED);
        assertThatThrownBy(() -> r.record("b", UpgradeHostState.HANDED_OVER)).hasMessageContaining("SKIPPED to HANDED_OVER");
        assertThatThrownBy(() -> r.record("zz", UpgradeHostState.FAILED)).hasMessageContaining("not in this rollout");
    }

    @Test
    void refusesBadSettingsAndDuplicateHosts() {
        assertThatThrownBy(() -> new Rollout(FIVE, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rollout(FIVE, 1001, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rollout(FIVE, 1, -0.01)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rollout(FIVE, 1, 1.01)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rollout(FIVE, 1, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rollout(List.of("a", "a"), 1, 0)).hasMessageContaining("twice");
    }

    @Test
    void anEmptyRolloutSucceedsAtOnce() {
        Rollout r = new Rollout(List.of(), 3, 0);
        assertThat(r.nextBatch()).isEmpty();
        assertThat(r.status()).isEqualTo(RolloutStatus.SUCCEEDED);
    }

    @Test
    void statesHaveLowerCaseWireNames() {
        for (UpgradeHostState s : UpgradeHostState.values()) {
            assertThat(UpgradeHostState.ofWire(s.wire())).isEqualTo(s);
        }
        assertThat(UpgradeHostState.HANDED_OVER.wire()).isEqualTo("handed_over");
        assertThat(RolloutStatus.ofWire("stopped")).isEqualTo(RolloutStatus.STOPPED);
    }
}
