package io.drover.agent.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What the installer reads from the real machine. */
class HostTest {
    @Test
    void theRealHostIsReadFromProcAndTheJvm() throws Exception {
        String uidLine = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow();
        String effectiveUid = uidLine.split("\\s+")[2];

        Host host = Host.real();

        assertThat(host.root()).isEqualTo(effectiveUid.equals("0"));
        assertThat(host.systemdRunning()).isEqualTo(Files.isDirectory(Path.of("/run/systemd/system")));
        assertThat(host.arch()).isIn("x86_64", "aarch64");
        assertThat(host.hostname()).isEqualTo(Files.readString(Path.of("/proc/sys/kernel/hostname")).strip());
    }

    @Test
    void theJvmsArchitectureNamesArePackageNames() {
        assertThat(AgentPackage.hostArch("amd64")).isEqualTo("x86_64");
        assertThat(AgentPackage.hostArch("x86_64")).isEqualTo("x86_64");
        assertThat(AgentPackage.hostArch("aarch64")).isEqualTo("aarch64");
        assertThat(AgentPackage.hostArch("riscv64")).isEqualTo("riscv64");
    }
}
