package io.drover.model.diagnosis;

import java.util.List;

/**
 * What the alert webhook did with a batch: how many alerts came, were resolved (skipped), were repeats of a
 * fingerprint inside the repeat interval, matched no trigger; the diagnoses started; and each alert left out with why.
 */
public record AlertReceipt(int received, int resolved, int repeated, int unmatched, List<DiagnosesStarted.StartedDiagnosis> started,
                           List<Skipped> skipped) {
    public record Skipped(String alertname, String fingerprint, String reason) {
    }
}
