package io.drover.agent.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * An unpacked agent package for the installer's own tests, with a fake agent as {@code bin/drover-agent}: a shell
 * script that appends "VERSION ARGS" to a file, reports a sign-in the way the real agent does ({@code sign-in.json}
 * in its state directory, found through the {@code root} of its configuration) and stays alive until stopped. The
 * real agent needs a server to sign in to; what the installer does with the file is the same. (The real agent's
 * file is tested in {@link AgentSignInStatusTest}.) Its other commands ({@code upgrade}, ...) run the real installer
 * on this test run's class path ({@link FakeInstaller}), as the real launcher does.
 */
final class FakePackage {
    /** How the fake agent behaves once started. */
    enum Behaviour {
        /** Reports SIGNED_IN. */
        SIGNS_IN("SIGNED_IN"),
        /** Reports UNREACHABLE, forever. */
        UNREACHABLE("UNREACHABLE"),
        /** Reports PENDING_ACCEPTANCE. */
        PENDING("PENDING_ACCEPTANCE"),
        /** Reports FINGERPRINT_MISMATCH. */
        WRONG_FINGER("FINGERPRINT_MISMATCH"),
        /** Prints an error and exits 2, as the agent does with a bad configuration. */
        EXITS(null);

        final String state;

        Behaviour(String state) {
            this.state = state;
        }
    }

    private FakePackage() {
    }

    /** Creates {@code drover-agent-<version>-linux-<arch>} under {@code parent}; the fake agent logs to {@code argsFile}. */
    static Path create(Path parent, String version, String arch, Behaviour behaviour, Path argsFile) throws IOException {
        Path dir = parent.resolve("drover-agent-" + version + "-linux-" + arch);
        Files.createDirectories(dir.resolve("bin"));
        Files.createDirectories(dir.resolve("lib"));
        Files.createDirectories(dir.resolve("runtime/bin"));
        Files.writeString(dir.resolve("VERSION"), version + "\n");
        Files.writeString(dir.resolve("ARCH"), arch + "\n");
        Files.writeString(dir.resolve("lib/drover-agent-" + version + ".jar"), "not really a jar");
        Files.writeString(dir.resolve("runtime/bin/java"), "#!/bin/sh\nexit 1\n");
        Files.createSymbolicLink(dir.resolve("runtime/lib"), Path.of("../lib")); // a link inside the package is kept
        String report = behaviour == Behaviour.EXITS
                ? "echo \"error: --master 'nowhere:x' is not HOST or HOST:PORT\"\nexit 2\n"
                : "now=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)\n"
                + "printf '{\"state\":\"" + behaviour.state + "\",\"master\":\"127.0.0.1:4506\",\"detail\":\"fake agent\","
                + "\"time\":\"%s\",\"version\":\"" + version + "\"}\\n' \"$now\" > \"$state/sign-in.json.tmp\"\n"
                + "mv \"$state/sign-in.json.tmp\" \"$state/sign-in.json\"\n"
                + "while :; do sleep 1; done\n";
        Path launcher = dir.resolve("bin/drover-agent");
        Files.writeString(launcher, "#!/bin/sh\n"
                + "# fake agent (see FakePackage): drover-agent run --config FILE; the other commands are the real installer's\n"
                + "case \"$1\" in run) ;; *) exec '" + javaCommand() + "' -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp '"
                + System.getProperty("java.class.path") + "' " + FakeInstaller.class.getName() + " \"$@\" ;; esac\n"
                + "echo \"" + version + " $*\" >> '" + argsFile + "'\n"
                + "root=$(sed -n \"s/^root: '\\(.*\\)'\\$/\\1/p\" \"$3\")\n"
                + "state=\"$root/var/lib/drover-agent\"\n"
                + report);
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
