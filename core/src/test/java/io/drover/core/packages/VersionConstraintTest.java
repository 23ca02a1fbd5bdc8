package io.drover.core.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class VersionConstraintTest {
    private static boolean allows(String constraint, String version) {
        return VersionConstraint.parse(constraint).allows(Version.parse(version));
    }

    @Test
    void tildeAllowsPatchUpdates() {
        assertThat(allows("~1.2.3", "1.2.9")).isTrue();
        assertThat(allows("~1.2.3", "1.3.0")).isFalse();
        assertThat(allows("~1.2.3", "1.2.2")).isFalse();
        assertThat(allows("~1", "1.9.0")).isTrue();
        assertThat(allows("~1", "2.0.0")).isFalse();
    }

    @Test
    void caretAllowsCompatibleUpdates() {
        assertThat(allows("^1.2.3", "1.9.0")).isTrue();
        assertThat(allows("^1.2.3", "2.0.0")).isFalse();
        assertThat(allows("^0.2.3", "0.2.9")).isTrue();
        assertThat(allows("^0.2.3", "0.3.0")).isFalse();
        assertThat(allows("^0.0.3", "0.0.4")).isFalse();
    }

    @Test
    void wildcardsAndPartialVersions() {
        assertThat(allows("1.2.x", "1.2.7")).isTrue();
        assertThat(allows("1.2.x", "1.3.0")).isFalse();
        assertThat(allows("1.2", "1.2.7")).isTrue();
        assertThat(allows("*", "0.0.1")).isTrue();
        assertThat(allows(">1.2", "1.2.9")).isFalse();
        assertThat(allows(">1.2", "1.3.0")).isTrue();
        assertThat(allows("<=1.2", "1.2.9")).isTrue();
        assertThat(allows("!=1.2.3", "1.2.3")).isFalse();
    }

    @Test
    void alternativesAndSpacesBetweenOperatorAndVersion() {
        assertThat(allows("<1.0.0 || >=2.0.0", "2.1.0")).isTrue();
        assertThat(allows("<1.0.0 || >=2.0.0", "1.5.0")).isFalse();
        assertThat(allows(">= 1.0.0 < 2.0.0", "1.5.0")).isTrue();
        assertThat(allows("", "0.0.1")).isTrue();
    }

    @Test
    void invalidConstraintsNameTheBadPart() {
        for (String bad : List.of(">>1.0.0", "1.0.0 ||", "abc", ">=1.x.2", "=>1.0.0")) {
            assertThatThrownBy(() -> VersionConstraint.parse(bad)).as(bad).isInstanceOf(PackageException.class)
                    .hasMessageContaining("constraint");
        }
        assertThatThrownBy(() -> VersionConstraint.parse(">=1.0.0, foo")).hasMessage(
                "invalid version constraint '>=1.0.0, foo': cannot read 'foo'");
    }

    @Test
    void versionsParseLenientlyAndNormalise() {
        assertThat(Version.parse("v1.2").toString()).isEqualTo("1.2.0");
        assertThat(Version.parse("1.2.02").toString()).isEqualTo("1.2.2");
        assertThat(Version.tryParse("1.2.3.4")).isNull();
        assertThat(Version.parse("1.0.0-alpha.10").compareTo(Version.parse("1.0.0-alpha.9"))).isPositive();
        assertThatThrownBy(() -> Version.parse("latest")).hasMessageContaining("'latest' is not a semantic version");
    }
}
