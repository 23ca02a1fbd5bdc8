package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestServer.Response;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Alertmanager's webhook as two businesses share it. A world of its own: its alerts start diagnoses, which the
 * authorization matrix's "nothing changed" snapshot must not see.
 */
class AlertFingerprintWallTest extends WithTwoBusinesses {

    /** An alert's fingerprint is the sender's to choose: one business's alert must not silence another's as a repeat. */
    @Test
    void anAlertOfOneBusinessDoesNotSilenceAnotherBusinessesAlertWithTheSameFingerprint() {
        String fingerprint = "c0ffee" + Long.toHexString(System.nanoTime());
        Response inside = world.fleet.server.post("/api/v1/alerts", world.scoped.get("alerts"), Map.of("alerts", List.of(Map.of(
                "status", "firing", "fingerprint", fingerprint,
                "labels", Map.of("alertname", "MatrixDown", "instance", "10.9.0.1:9100")))));
        assertThat(inside.status()).as(inside.text()).isEqualTo(200);
        assertThat(inside.body().path("started").size()).as(inside.text()).isEqualTo(1);
        Response outside = world.fleet.server.post("/api/v1/alerts", world.fleet.server.adminToken(), Map.of("alerts", List.of(Map.of(
                "status", "firing", "fingerprint", fingerprint,
                "labels", Map.of("alertname", "MatrixDown", "instance", "10.9.7.1:9100")))));
        assertThat(outside.status()).as(outside.text()).isEqualTo(200);
        assertThat(outside.body().path("repeated").asInt()).as(outside.text()).isZero();
        assertThat(outside.body().path("started").size()).as(outside.text()).isEqualTo(1);
    }
}
