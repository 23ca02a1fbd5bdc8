package io.drover.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.auth.Role;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrincipalTest {
    @Test
    void aSystemPrincipalLimitedToABusinessCoversThatOneOnly() {
        Principal task = Principal.system("subscriptions").limitedTo(Set.of(2L));
        assertThat(task.name()).isEqualTo("system:subscriptions");
        assertThat(task.allBusinesses()).isFalse();
        assertThat(task.covers(2L)).isTrue();
        assertThat(task.covers(7L)).isFalse();
        assertThat(task.covers(null)).isFalse();
    }

    @Test
    void limitingNeverWidensNorMeansEveryBusiness() {
        Principal scoped = new Principal(1, "t", Role.OPERATOR, Set.of(2L, 3L));
        assertThat(scoped.limitedTo(Set.of(3L)).bizIds()).containsExactly(3L);
        assertThatThrownBy(() -> scoped.limitedTo(Set.of(7L))).isInstanceOf(IllegalArgumentException.class);
        // an empty set would be read as every business
        assertThatThrownBy(() -> Principal.system("x").limitedTo(Set.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
