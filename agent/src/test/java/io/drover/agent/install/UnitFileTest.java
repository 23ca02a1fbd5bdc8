package io.drover.agent.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rendered drover-agent.service, checked by {@code systemd-analyze verify} (which reads a unit file without a
 * running systemd: directives, their values, and that ExecStart names an executable). Verify only warns about a bad
 * value, so no output at all is asserted, besides the exit status.
 */
class UnitFileTest {
    @TempDir
    Path prefix;

    @Test
    void theRenderedUnitPassesSystemdAnalyzeVerify() throws Exception {
        Layout layout = installedLauncher();
        Path unit = prefix.resolve("drover-agent.service");
        Files.writeString(unit, UnitFile.render(layout));

        Verify verify = verify(unit);

        assertThat(verify.exit()).as(verify.output()).isZero();
        assertThat(verify.output()).isEmpty();
        assertThat(Files.readString(unit))
                .contains("\nType=simple\n", "\nExecStart=" + layout.launcher() + " run --config " + layout.config() + "\n",
                        "\nRestart=on-failure\n", "\nRestartSec=5\n", "\nStandardOutput=journal\n", "\nKillMode=process\n",
                        "\nLimitNOFILE=65536\n", "\nWantedBy=multi-user.target\n")
                .doesNotContain("@LAUNCHER@", "@CONFIG@");
    }

    @Test
    void verifyRefusesAUnitWhoseLauncherIsMissing() throws Exception {
        Layout layout = new Layout(prefix); // nothing installed
        Path unit = prefix.resolve("drover-agent.service");
        Files.writeString(unit, UnitFile.render(layout));

        Verify verify = verify(unit);

        assertThat(verify.exit()).isNotZero();
        assertThat(verify.output()).contains(layout.launcher() + " is not executable");
    }

    @Test
    void verifyReportsABadValue() throws Exception {
        Path unit = prefix.resolve("drover-agent.service");
        Files.writeString(unit, UnitFile.render(installedLauncher()).replace("KillMode=process", "KillMode=sometimes"));

        assertThat(verify(unit).output()).contains("Failed to parse kill mode");
    }

    private Layout installedLauncher() throws IOException {
        Layout layout = new Layout(prefix);
        Path bin = Files.createDirectories(layout.version("1.0.0").resolve("bin"));
        Files.writeString(bin.resolve("drover-agent"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(bin.resolve("drover-agent"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(layout.current(), Path.of("versions/1.0.0"));
        return layout;
    }

    private record Verify(int exit, String output) {
    }

    private static Verify verify(Path unit) throws Exception {
        Process process = new ProcessBuilder("systemd-analyze", "verify", unit.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Verify(process.exitValue(), output.strip());
    }
}
