package io.drover.model.diagnosis;

import java.util.List;

/** The diagnoses a request started, one per host. */
public record DiagnosesStarted(List<StartedDiagnosis> diagnoses) {
    public record StartedDiagnosis(long id, String name, long hostId, String hostName) {
    }
}
