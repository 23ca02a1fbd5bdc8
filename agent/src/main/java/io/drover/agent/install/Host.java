package io.drover.agent.install;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * What the installer learns from the machine it runs on; tests give their own.
 *
 * @param home           the package the running launcher belongs to ({@code -Ddrover.agent.home}), or null
 * @param systemdRunning whether systemd is the running init ({@code /run/systemd/system} exists)
 * @param stopGrace      how long a stopped agent process may take before it is killed
 */
record Host(InputStream stdin, boolean root, boolean systemdRunning, String arch, Path home, Systemd.Systemctl systemctl,
            Clock clock, String hostname, Duration stopGrace) {

    static Host real() {
        String home = System.getProperty("drover.agent.home");
        return new Host(System.in, uid() == 0, Files.isDirectory(Path.of("/run/systemd/system")),
                AgentPackage.hostArch(System.getProperty("os.arch", "")), home == null || home.isBlank() ? null : Path.of(home),
                Systemd.Systemctl.REAL, Clock.systemUTC(), readHostname(), Duration.ofSeconds(15));
    }

    /** The effective uid: the owner of {@code /proc/self}; -1 when it cannot be read. */
    private static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return -1;
        }
    }

    private static String readHostname() {
        for (String file : new String[] {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
            try {
                String name = Files.readString(Path.of(file)).strip();
                if (!name.isEmpty()) {
                    return name;
                }
            } catch (IOException | RuntimeException e) {
                // the next source
            }
        }
        return null;
    }
}
