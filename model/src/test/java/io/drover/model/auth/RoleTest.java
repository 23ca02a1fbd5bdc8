package io.drover.model.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class RoleTest {

    @ParameterizedTest(name = "{0} may call a {1} route: {2}")
    @CsvSource({
            "VIEWER, VIEWER, true", "VIEWER, OPERATOR, false", "VIEWER, ADMIN, false", "VIEWER, ALERTS, false",
            "OPERATOR, VIEWER, true", "OPERATOR, OPERATOR, true", "OPERATOR, ADMIN, false", "OPERATOR, ALERTS, true",
            "ADMIN, VIEWER, true", "ADMIN, OPERATOR, true", "ADMIN, ADMIN, true", "ADMIN, ALERTS, true",
            // an alerts token posts alerts and nothing else, not even reading
            "ALERTS, VIEWER, false", "ALERTS, OPERATOR, false", "ALERTS, ADMIN, false", "ALERTS, ALERTS, true",
    })
    void theAlertsRoleStandsApartFromTheLadder(Role have, Role route, boolean allowed) {
        assertThat(have.atLeast(route)).isEqualTo(allowed);
    }

    @Test
    void rolesAreParsedByTheirWireName() {
        assertThat(Role.parse("Alerts")).isEqualTo(Role.ALERTS);
        assertThat(Role.ALERTS.wireName()).isEqualTo("alerts");
        assertThatThrownBy(() -> Role.parse("root")).hasMessageContaining("alerts");
    }
}
