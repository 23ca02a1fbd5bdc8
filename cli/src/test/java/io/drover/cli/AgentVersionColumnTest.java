package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.packages.Version;
import org.junit.jupiter.api.Test;

/** drover agent list marks an agent older than the newest agent package stored. */
class AgentVersionColumnTest {
    static String cell(String version, String newest) {
        return AgentCommand.version(version, newest == null ? null : Version.parse(newest));
    }

    @Test
    void anOlderVersionIsMarkedWithTheNewestAvailable() {
        assertThat(cell("0.1.0", "0.2.0")).isEqualTo("0.1.0 (old: 0.2.0 available)");
        assertThat(cell("0.2.0-rc.1", "0.2.0")).isEqualTo("0.2.0-rc.1 (old: 0.2.0 available)");
        assertThat(cell("1.9.0", "1.10.0")).isEqualTo("1.9.0 (old: 1.10.0 available)");
    }

    @Test
    void theNewestANewerOneAVersionThatIsNotSemanticAndNoPackageAreShownAsTheyAre() {
        assertThat(cell("0.2.0", "0.2.0")).isEqualTo("0.2.0");
        assertThat(cell("0.3.0", "0.2.0")).isEqualTo("0.3.0");
        assertThat(cell("test", "0.2.0")).isEqualTo("test");
        assertThat(cell("0.1.0", null)).isEqualTo("0.1.0");
        assertThat(cell(null, "0.2.0")).isEmpty();
    }
}
