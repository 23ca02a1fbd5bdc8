package io.drover.model.diagnosis;

import java.util.List;

/** The diagnoses a request started, one per host. */
public record DiagnosesStarted(List<Started> diagnoses) {
    public record Started(long id, String name, long hostId, String hostName) {
    }
}
