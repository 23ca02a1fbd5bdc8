package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.diagnosis.DiagnosisProgress.State;
import io.drover.model.diagnosis.DiagnosisPhase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DiagnosisCancelTest {
    static final List<List<Integer>> PATHS = List.of(List.of(1, 2), List.of(3));

    @Test
    void aCancelledDiagnosisIsFinishedKeepsWhatItFoundAndRunsNoFurtherNode() {
        State running = DiagnosisProgress.after(PATHS, DiagnosisProgress.start(), true, Map.of("collected", "yes"), null);
        State cancelled = DiagnosisProgress.cancel(running, "cancelled by ops while node 2 ran");
        assertThat(cancelled.phase()).isEqualTo(DiagnosisPhase.CANCELLED);
        assertThat(cancelled.finished()).isTrue();
        assertThat(cancelled.results()).containsEntry("collected", "yes");
        assertThat(cancelled.succeededPath()).containsExactly(1);
        assertThat(cancelled.conditions().getLast())
                .isEqualTo(new DiagnosisProgress.Condition("Complete", "Cancelled", "cancelled by ops while node 2 ran"));
        assertThat(DiagnosisProgress.next(PATHS, cancelled)).isEmpty();
    }

    @Test
    void onlyAnUnfinishedDiagnosisCanBeCancelled() {
        State succeeded = DiagnosisProgress.after(List.of(List.of(1)), DiagnosisProgress.start(), true, Map.of(), null);
        assertThat(succeeded.phase()).isEqualTo(DiagnosisPhase.SUCCEEDED);
        assertThatThrownBy(() -> DiagnosisProgress.cancel(succeeded, "x")).isInstanceOf(IllegalStateException.class);
        State aborted = DiagnosisProgress.abort(DiagnosisProgress.start(), "AgentUnavailable", "offline");
        assertThatThrownBy(() -> DiagnosisProgress.cancel(aborted, "x")).isInstanceOf(IllegalStateException.class);
        State cancelled = DiagnosisProgress.cancel(DiagnosisProgress.start(), "x");
        assertThatThrownBy(() -> DiagnosisProgress.cancel(cancelled, "again")).isInstanceOf(IllegalStateException.class);
    }
}
