package io.drover.agent.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The version an agent reports: its package's VERSION, else the build's. */
class AgentHomeTest {
    @TempDir
    Path home;

    @Test
    void aPackageReportsTheVersionInItsVersionFile() throws IOException {
        Files.writeString(home.resolve("VERSION"), "2.5.0-rc.1\n");
        assertThat(AgentHome.version(home, "0.1.0")).isEqualTo("2.5.0-rc.1");
    }

    @Test
    void withoutAPackageOrAReadableVersionItIsTheBuildVersion() throws IOException {
        assertThat(AgentHome.version(null, "0.1.0")).isEqualTo("0.1.0");
        assertThat(AgentHome.version(home, "0.1.0")).as("no VERSION file").isEqualTo("0.1.0");
        Files.writeString(home.resolve("VERSION"), "../../x\n");
        assertThat(AgentHome.version(home, "0.1.0")).as("not a version").isEqualTo("0.1.0");
        Files.delete(home.resolve("VERSION"));
        Files.writeString(home.resolve("elsewhere"), "9.9.9\n");
        Files.createSymbolicLink(home.resolve("VERSION"), home.resolve("elsewhere"));
        assertThat(AgentHome.version(home, "0.1.0")).as("a link").isEqualTo("0.1.0");
    }
}
