package io.drover.agent.install;

import io.drover.agent.SignInFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where an installed agent's files are, every one under {@code prefix} ({@code /} on a real host): the packages in
 * {@code opt/drover-agent/versions/<version>} with {@code current} linking to one, state (the agent's key, journal,
 * sign-in status) in {@code var/lib/drover-agent}, configuration and secrets in {@code etc/drover}, the systemd
 * unit, and the log of an agent the installer runs itself.
 */
record Layout(Path prefix) {
    static final String UNIT_NAME = "drover-agent.service";

    Path opt() {
        return prefix.resolve("opt/drover-agent");
    }

    Path versions() {
        return opt().resolve("versions");
    }

    Path version(String version) {
        return versions().resolve(version);
    }

    /** The link to the version that runs. */
    Path current() {
        return opt().resolve("current");
    }

    /** Which service manager runs the agent: systemd, process or none (written by install). */
    Path serviceKind() {
        return opt().resolve("service");
    }

    Path launcher() {
        return current().resolve("bin/drover-agent");
    }

    /** The agent's {@code --root}: the agent keeps its state in {@code <root>/var/lib/drover-agent}. */
    Path agentRoot() {
        return prefix;
    }

    Path state() {
        return prefix.resolve("var/lib/drover-agent");
    }

    Path signIn() {
        return state().resolve(SignInFile.NAME);
    }

    Path pidFile() {
        return state().resolve("agent.pid");
    }

    Path etc() {
        return prefix.resolve("etc/drover");
    }

    Path config() {
        return etc().resolve("agent.yaml");
    }

    Path secrets() {
        return etc().resolve("secrets");
    }

    Path tokenFile() {
        return secrets().resolve("enroll-token");
    }

    Path amqpPasswordFile() {
        return secrets().resolve("amqp-password");
    }

    Path unit() {
        return prefix.resolve("etc/systemd/system").resolve(UNIT_NAME);
    }

    Path logDir() {
        return prefix.resolve("var/log/drover-agent");
    }

    Path logFile() {
        return logDir().resolve("agent.log");
    }

    /** The command that runs the installed agent (systemd's ExecStart, or what another supervisor should run). */
    List<String> runCommand() {
        return List.of(launcher().toString(), "run", "--config", config().toString());
    }

    /** The version {@code current} links to, if it is installed. */
    Optional<String> currentVersion() {
        try {
            if (!Files.isSymbolicLink(current())) {
                return Optional.empty();
            }
            Path target = Files.readSymbolicLink(current());
            return Files.isDirectory(versions().resolve(target.getFileName().toString()), LinkOption.NOFOLLOW_LINKS)
                    ? Optional.of(target.getFileName().toString()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The versions under {@code versions/}, sorted by name. */
    List<String> installedVersions() {
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(versions(), LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(versions())) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (!name.startsWith(".") && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    out.add(name);
                }
            }
        } catch (IOException e) {
            return out;
        }
        out.sort(null);
        return out;
    }
}
