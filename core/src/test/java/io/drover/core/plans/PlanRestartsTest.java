package io.drover.core.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** When a plan found unfinished at a start runs again, and when it is answered. */
class PlanRestartsTest {
    @Test
    void aPlanCutShortByACrashRunsAgainOnceThenIsAnsweredWith1() {
        PlanRestarts.Decision first = PlanRestarts.STARTED.atStart();
        assertThat(first).isInstanceOf(PlanRestarts.Decision.Restart.class);
        PlanRestarts.Decision.Restart restart = (PlanRestarts.Decision.Restart) first;
        assertThat(restart.afterReboot()).isFalse();
        assertThat(restart.next()).isEqualTo(new PlanRestarts(Optional.empty(), 0, 1));

        PlanRestarts.Decision second = restart.next().atStart();
        assertThat(second).isInstanceOf(PlanRestarts.Decision.Answer.class);
        PlanException error = ((PlanRestarts.Decision.Answer) second).error();
        assertThat(error.code()).isEqualTo(PlanErrorCode.GENERIC);
        assertThat(error.getMessage()).contains("again after it was restarted from the start");
    }

    @Test
    void rebootsAreCountedAcrossRunsAndTheLimitIsEnforced() {
        PlanRestarts state = PlanRestarts.STARTED;
        for (int reboot = 1; reboot <= 2; reboot++) {
            // each run calls expectReboots(2) and waitReboot again: the count used so far is kept
            PlanRestarts.Decision decision = state.waiting(2).atStart();
            assertThat(decision).as("reboot " + reboot).isInstanceOf(PlanRestarts.Decision.Restart.class);
            assertThat(((PlanRestarts.Decision.Restart) decision).afterReboot()).isTrue();
            state = ((PlanRestarts.Decision.Restart) decision).next();
            assertThat(state.reboots()).isEqualTo(reboot);
            assertThat(state.waitingLimit()).as("not waiting once restarted").isEmpty();
        }
        PlanRestarts.Decision third = state.waiting(2).atStart();
        assertThat(third).isInstanceOf(PlanRestarts.Decision.Answer.class);
        assertThat(((PlanRestarts.Decision.Answer) third).error().getMessage()).contains("after 2 reboot(s)", "limit of 2");
    }

    @Test
    void expectRebootsZeroAllowsNoReboot() {
        assertThat(PlanRestarts.STARTED.waiting(0).atStart()).isInstanceOf(PlanRestarts.Decision.Answer.class);
        assertThat(PlanRestarts.STARTED.waiting(-3).waitingLimit()).contains(0);
    }

    @Test
    void aWaitOverWithoutARebootMakesTheNextStopACrash() {
        PlanRestarts waited = PlanRestarts.STARTED.waiting(5).running();
        PlanRestarts.Decision decision = waited.atStart();
        assertThat(((PlanRestarts.Decision.Restart) decision).afterReboot()).isFalse();
        assertThat(((PlanRestarts.Decision.Restart) decision).next().crashRestarts()).isEqualTo(1);
    }

    @Test
    void aCrashAfterARebootRestartStillHasItsOneCrashRestart() {
        PlanRestarts afterReboot = ((PlanRestarts.Decision.Restart) PlanRestarts.STARTED.waiting(3).atStart()).next();
        PlanRestarts.Decision crash = afterReboot.atStart();
        assertThat(crash).isInstanceOf(PlanRestarts.Decision.Restart.class);
        PlanRestarts afterCrash = ((PlanRestarts.Decision.Restart) crash).next();
        assertThat(afterCrash).isEqualTo(new PlanRestarts(Optional.empty(), 1, 1));
        assertThat(afterCrash.atStart()).isInstanceOf(PlanRestarts.Decision.Answer.class);
        assertThat(afterCrash.waiting(3).atStart()).as("a reboot still counts against expectReboots, not the crash")
                .isInstanceOf(PlanRestarts.Decision.Restart.class);
    }

    @Test
    void storedFormRoundTripsAndAnythingElseIsAFreshStart() {
        PlanRestarts state = new PlanRestarts(Optional.of(4), 2, 1);
        assertThat(PlanRestarts.fromMap(state.toMap())).isEqualTo(state);
        assertThat(PlanRestarts.fromMap(new PlanRestarts(Optional.empty(), 3, 0).toMap()).waitingLimit()).isEmpty();
        assertThat(PlanRestarts.fromMap("junk")).isEqualTo(PlanRestarts.STARTED);
        assertThat(PlanRestarts.fromMap(Map.of("reboots", -5, "crashRestarts", "x", "waitingLimit", -1)))
                .isEqualTo(PlanRestarts.STARTED);
        assertThatThrownBy(() -> new PlanRestarts(Optional.empty(), -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
