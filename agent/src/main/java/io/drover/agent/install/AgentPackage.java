package io.drover.agent.install;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;

/**
 * An unpacked agent package ({@code drover-agent-<version>-linux-<arch>/}): {@code bin/drover-agent}, {@code runtime/},
 * {@code lib/}, and the one-line files {@code VERSION} and {@code ARCH}.
 */
record AgentPackage(Path dir, String version, String arch) {
    /** A version becomes a directory name: letters, digits, '.', '_', '+', '-', starting with a letter or digit. */
    private static final String VERSION = "[0-9A-Za-z][0-9A-Za-z._+-]{0,63}";

    /** Reads and checks the package in {@code dir}. */
    static AgentPackage open(Path dir) throws InstallFailed {
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException e) {
            throw new InstallFailed("the package directory " + dir + " does not exist");
        }
        if (!Files.isDirectory(real)) {
            throw new InstallFailed(dir + " is not a directory; give --package the unpacked drover-agent-<version>-linux-<arch> directory");
        }
        String version = line(real, "VERSION");
        if (!version.matches(VERSION)) {
            throw new InstallFailed(real.resolve("VERSION") + " does not hold a version (letters, digits, '.', '_', '+', '-')");
        }
        String arch = line(real, "ARCH");
        if (!arch.equals("x86_64") && !arch.equals("aarch64")) {
            throw new InstallFailed(real.resolve("ARCH") + " names no known architecture (x86_64 or aarch64)");
        }
        Path launcher = real.resolve("bin/drover-agent");
        if (!Files.isRegularFile(launcher, LinkOption.NOFOLLOW_LINKS) || !Files.isExecutable(launcher)) {
            throw new InstallFailed(dir + " is not an agent package: it has no executable bin/drover-agent");
        }
        return new AgentPackage(real, version, arch);
    }

    /** Refuses a package built for another architecture than {@code hostArch}. */
    void requireArch(String hostArch) throws InstallFailed {
        if (!arch.equals(hostArch)) {
            throw new InstallFailed("the package is for " + arch + " but this host is " + hostArch
                    + ": use drover-agent-" + version + "-linux-" + hostArch);
        }
    }

    /** The architecture of a package that runs on a JVM reporting {@code os.arch}. */
    static String hostArch(String osArch) {
        String arch = osArch.toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
    }

    /** The first line of a small file of the package, stripped. */
    private static String line(Path dir, String name) throws InstallFailed {
        Path file = dir.resolve(name);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new InstallFailed(dir + " is not an agent package: it has no " + name + " file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            String text = new String(SafeFiles.readAtMost(in, 256, file.toString()), StandardCharsets.UTF_8);
            int newline = text.indexOf('\n');
            return (newline < 0 ? text : text.substring(0, newline)).strip();
        } catch (IOException e) {
            throw new InstallFailed("cannot read " + file + ": " + e.getMessage());
        }
    }
}
