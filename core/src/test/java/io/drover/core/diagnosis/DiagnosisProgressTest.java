package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.diagnosis.DiagnosisProgress.State;
import io.drover.model.diagnosis.DiagnosisPhase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How outcomes move a diagnosis along its paths. */
class DiagnosisProgressTest {
    /** Paths of the diamond 0→1,2→3, without the start node. */
    static final List<List<Integer>> DIAMOND = List.of(List.of(1, 3), List.of(2, 3));

    @Test
    void theFirstPathThatSucceedsEndsTheDiagnosis() {
        State s = DiagnosisProgress.start();
        assertThat(DiagnosisProgress.next(DIAMOND, s)).hasValue(1);
        s = DiagnosisProgress.after(DIAMOND, s, true, Map.of("a", "1"), null);
        assertThat(DiagnosisProgress.next(DIAMOND, s)).hasValue(3);
        s = DiagnosisProgress.after(DIAMOND, s, true, Map.of("b", "2"), null);
        assertThat(s.phase()).isEqualTo(DiagnosisPhase.SUCCEEDED);
        assertThat(s.succeededPath()).containsExactly(1, 3);
        assertThat(s.results()).isEqualTo(Map.of("a", "1", "b", "2"));
        assertThat(DiagnosisProgress.next(DIAMOND, s)).isEmpty();
        assertThat(s.conditions()).extracting(DiagnosisProgress.Condition::type).containsExactly("Accepted", "Complete");
    }

    /** KubeDiag v0.3.1 keeps the failed node's index for the next path; here the next path starts at its first node. */
    @Test
    void aFailedPathIsKeptWholeAndTheNextStartsAtItsFirstNode() {
        State s = DiagnosisProgress.start();
        s = DiagnosisProgress.after(DIAMOND, s, true, Map.of("collected", "yes"), null);
        s = DiagnosisProgress.after(DIAMOND, s, false, Map.of("function.check.error", "exit status 1"), "exit status 1");
        assertThat(s.phase()).isEqualTo(DiagnosisPhase.RUNNING);
        assertThat(s.failedPaths()).containsExactly(List.of(1, 3));
        assertThat(s.succeededPath()).isEmpty();
        assertThat(s.pathIndex()).isEqualTo(1);
        assertThat(s.nodeIndex()).isZero();
        assertThat(DiagnosisProgress.next(DIAMOND, s)).hasValue(2);
        assertThat(s.results()).as("results of the failed path are kept").containsEntry("collected", "yes")
                .containsEntry("function.check.error", "exit status 1");
        assertThat(s.conditions().get(1).message()).isEqualTo("path 1 failed at node 3: exit status 1");
        s = DiagnosisProgress.after(DIAMOND, s, false, Map.of(), "");
        assertThat(s.phase()).isEqualTo(DiagnosisPhase.FAILED);
        assertThat(s.failedPaths()).containsExactly(List.of(1, 3), List.of(2, 3));
        assertThat(DiagnosisProgress.next(DIAMOND, s)).isEmpty();
    }

    /** KubeDiag's run-a-diagnosis example: parameters, then results, then context keys. */
    @Test
    void dataIsParametersThenResultsThenContext() {
        State s = DiagnosisProgress.after(List.of(List.of(1, 2)), DiagnosisProgress.start(), true,
                Map.of("a", "100", "b", "2", "c", "3", "d", "4", "e", "5"), null);
        Map<String, String> data = DiagnosisProgress.data(Map.of("b", "200", "f", "6"), s,
                Map.of("diagnosis.name", "d1", "host.name", "my-node", "b", "context wins"));
        assertThat(data).containsEntry("a", "100").containsEntry("b", "context wins").containsEntry("f", "6")
                .containsEntry("host.name", "my-node");
        Map<String, String> noContext = DiagnosisProgress.data(Map.of("b", "200", "f", "6"), s, Map.of());
        assertThat(noContext).containsEntry("b", "2").as("results overlay parameters");
    }

    @Test
    void anAbortEndsItWithTheReason() {
        State s = DiagnosisProgress.abort(DiagnosisProgress.start(), "AgentOffline", "agent web-1 did not answer after 4 tries");
        assertThat(s.phase()).isEqualTo(DiagnosisPhase.FAILED);
        assertThat(s.conditions().getLast()).isEqualTo(new DiagnosisProgress.Condition("Complete", "AgentOffline",
                "agent web-1 did not answer after 4 tries"));
    }
}
