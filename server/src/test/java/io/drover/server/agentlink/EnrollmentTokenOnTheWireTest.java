package io.drover.server.agentlink;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.transport.protocol.Messages;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which enrollment token a sign-in presents: only what the master opened, or a clear one when allowed. */
class EnrollmentTokenOnTheWireTest {

    @Test
    void aTokenInClearCountsOnlyWhenAllowed() {
        Map<String, Object> plain = Map.of(Messages.ENROLL_PLAIN, "drv_enroll_x");
        assertThat(SaltBridge.enrollmentToken(plain, false)).isNull();
        assertThat(SaltBridge.enrollmentToken(plain, true)).isEqualTo("drv_enroll_x");
    }

    @Test
    void theOpenedTokenWins() {
        Map<String, Object> both = Map.of(Messages.ENROLL_PLAIN, "drv_enroll_plain", Messages.ENROLL_OPENED, "drv_enroll_sealed");
        assertThat(SaltBridge.enrollmentToken(both, false)).isEqualTo("drv_enroll_sealed");
        assertThat(SaltBridge.enrollmentToken(both, true)).isEqualTo("drv_enroll_sealed");
        assertThat(SaltBridge.enrollmentToken(Map.of(), true)).isNull();
    }
}
