package io.drover.server.agentinstall;

import io.drover.model.agentinstall.AgentInstallHost;
import io.drover.model.agentinstall.AgentInstallStep;
import io.drover.model.agentinstall.InstallStatus;
import io.drover.server.agentinstall.SshConnection.Result;
import io.drover.server.agentinstall.SshConnection.SshFailure;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The install of one host, step by step: connect, host_key, authenticate, detect ({@code uname -sm}), upload (the
 * package over an exec channel, then its sha256 checked on the host), unpack, install (the enrollment token on the
 * installer's standard input), sign_in (the installer's verdict) and link (the registry linked the agent to the
 * host's inventory host). Writes only its own row. Nothing the host sends is trusted: outputs are bounded, cleaned
 * and matched against strict patterns before use.
 */
final class HostInstall {
    private static final Pattern UNAME = Pattern.compile("Linux (x86_64|amd64|aarch64|arm64)");
    private static final Pattern TEMP_DIR = Pattern.compile("/tmp/drover-install\\.[A-Za-z0-9]{6,16}");
    private static final int SMALL_OUTPUT = 4096;
    private static final int LARGE_OUTPUT = 64 * 1024;

    /** What the install needs besides the host: shared by a task's hosts. */
    record Plan(Credentials credentials, SshConnection.Jump jump, String packageVersion, List<String> masters,
                String masterFinger, Integer publishPort, String prefix, String service, int waitSeconds) {
        /** This plan with other credentials and jump host (none: kept for a retry, which is given them again). */
        Plan with(Credentials credentials, SshConnection.Jump jump) {
            return new Plan(credentials, jump, packageVersion, masters, masterFinger, publishPort, prefix, service, waitSeconds);
        }
    }

    /** Services of the task run: the package for an architecture, the token for this host, the link check. */
    interface Needs {
        java.util.Optional<AgentPackageFiles.PackageFile> packageFor(String version, String arch);

        /** A new single-use enrollment token for this host's agent id. */
        String token(String agentId);

        /** Waits for the registry to link the agent; null when linked as expected, else why not. */
        String awaitLink(String agentId, Long bkHostId, String innerIp);

        /** The host's install ended, however: its token is revoked (a host that kept it cannot use it later). */
        void ended();
    }

    private final org.apache.sshd.client.SshClient client;
    private final HostKeyStore keys;
    private final InstallStore store;
    private final Clock clock;
    private final AgentInstallHost host;
    private final String connectTo;
    private final Plan plan;
    private final Needs needs;
    private final List<AgentInstallStep> steps = new ArrayList<>();
    private OffsetDateTime started;
    private String arch;
    private String version;

    /** {@code connectTo}: the address checked for the host's (agent-install-allowed-targets), connected to. */
    HostInstall(org.apache.sshd.client.SshClient client, HostKeyStore keys, InstallStore store, Clock clock, AgentInstallHost host,
                String connectTo, Plan plan, Needs needs) {
        this.client = client;
        this.keys = keys;
        this.store = store;
        this.clock = clock;
        this.host = host;
        this.connectTo = connectTo;
        this.plan = plan;
        this.needs = needs;
    }

    /** Runs every step; true when the agent signed in and was linked. Never throws. */
    boolean run() {
        started = OffsetDateTime.now(clock);
        save(InstallStatus.RUNNING, null);
        try {
            install();
            save(InstallStatus.SUCCEEDED, null);
            return true;
        } catch (SshFailure e) {
            failStep(e.step, e.getMessage());
            save(InstallStatus.FAILED, e.getMessage());
        } catch (RuntimeException e) {
            String message = "internal error: " + e.getClass().getSimpleName();
            failStep("install", message);
            save(InstallStatus.FAILED, message);
        } finally {
            needs.ended();
        }
        return false;
    }

    private void install() throws SshFailure {
        begin("connect", "connecting to " + host.address() + ":" + host.port()
                + (connectTo.equals(host.address()) ? "" : " at " + connectTo)
                + (plan.jump() == null ? "" : " through " + plan.jump().host() + ":" + plan.jump().port()));
        try (SshConnection ssh = SshConnection.open(client, host.address(), connectTo, host.port(), plan.credentials(), plan.jump(), keys,
                (check, seen) -> keyChecked(check))) {
            done("connect", "authenticated as " + plan.credentials().user());
            begin("detect", "uname -sm");
            Result uname = ssh.exec("detect", "uname -sm", null, SMALL_OUTPUT, Duration.ofSeconds(30));
            Matcher m = UNAME.matcher(uname.out().strip());
            if (uname.exit() != 0 || !m.matches()) {
                throw new SshFailure("detect", "unsupported system: uname -sm said '" + LogLines.clean(uname.out().strip(), 80)
                        + "'; agent packages are for Linux x86_64 and aarch64");
            }
            arch = switch (m.group(1)) {
                case "amd64" -> "x86_64";
                case "arm64" -> "aarch64";
                default -> m.group(1);
            };
            AgentPackageFiles.PackageFile pkg = needs.packageFor(plan.packageVersion(), arch).orElseThrow(() -> new SshFailure("detect",
                    "no agent package " + (plan.packageVersion() == null ? "" : plan.packageVersion() + " ") + "for linux-" + arch
                            + " on the server: add drover-agent-<version>-linux-" + arch + ".tar.gz to its agent-packages-dir"));
            version = pkg.version();
            done("detect", "Linux " + arch + ": package " + pkg.fileName());

            begin("upload", pkg.fileName() + " (" + size(pkg) + " bytes)");
            Result temp = ssh.exec("upload", "mktemp -d /tmp/drover-install.XXXXXXXX", null, SMALL_OUTPUT, Duration.ofSeconds(30));
            String dir = temp.out().strip();
            if (temp.exit() != 0 || !TEMP_DIR.matcher(dir).matches()) {
                throw new SshFailure("upload", "mktemp -d on the host failed: " + LogLines.clean(temp.err().strip(), 200));
            }
            try {
                upload(ssh, pkg, dir);
                begin("unpack", "tar -xzf into " + dir);
                Result tar = ssh.exec("unpack", "tar -xzf " + quote(dir + "/" + pkg.fileName()) + " -C " + quote(dir), null,
                        LARGE_OUTPUT, Duration.ofMinutes(5));
                if (tar.exit() != 0) {
                    throw new SshFailure("unpack", "unpacking the package failed (exit " + tar.exit() + "): "
                            + LogLines.clean(tar.err().strip(), 200));
                }
                done("unpack", "unpacked");
                installAndSignIn(ssh, dir + "/" + pkg.dirName());
            } finally {
                try {
                    ssh.exec("cleanup", "rm -rf " + quote(dir), null, SMALL_OUTPUT, Duration.ofSeconds(60));
                } catch (SshFailure ignored) {
                    // the host's temporary directory stays; it holds no secret
                }
            }
        }
        begin("link", "waiting for the agent " + host.agentId() + " to be linked to its inventory host");
        String problem = needs.awaitLink(host.agentId(), host.bkHostId(), host.innerIp());
        if (problem != null) {
            throw new SshFailure("link", problem);
        }
        done("link", "linked");
    }

    private void keyChecked(SshConnection.KeyCheck check) {
        HostKeyStore.Outcome outcome = check.outcome;
        String who = check.address + ":" + check.port;
        if (outcome instanceof HostKeyStore.FirstSeen f) {
            log("connect", "host key of " + who + " seen for the first time, recorded: " + f.fingerprint());
        } else if (outcome instanceof HostKeyStore.Known k) {
            log("connect", "host key of " + who + " matches the recorded one: " + k.fingerprint());
        }
    }

    private void upload(SshConnection ssh, AgentPackageFiles.PackageFile pkg, String dir) throws SshFailure {
        String file = quote(dir + "/" + pkg.fileName());
        try (InputStream in = Files.newInputStream(pkg.path())) {
            Result cat = ssh.exec("upload", "cat > " + file, in, SMALL_OUTPUT, Duration.ofMinutes(10));
            if (cat.exit() != 0) {
                throw new SshFailure("upload", "writing the package on the host failed (exit " + cat.exit() + "): "
                        + LogLines.clean(cat.err().strip(), 200));
            }
        } catch (IOException e) {
            throw new SshFailure("upload", "cannot read the agent package on the server: " + pkg.fileName());
        }
        Result sum = ssh.exec("upload", "sha256sum " + file, null, SMALL_OUTPUT, Duration.ofMinutes(2));
        String got = sum.out().length() >= 64 ? sum.out().substring(0, 64) : sum.out().strip();
        if (sum.exit() != 0 || !got.equals(pkg.sha256())) {
            throw new SshFailure("upload", "the package on the host has sha256 '" + LogLines.clean(got, 64) + "', not "
                    + pkg.sha256() + ": the upload was damaged (is the disk full?)");
        }
        done("upload", "sha256 " + pkg.sha256() + " checked on the host");
    }

    private void installAndSignIn(SshConnection ssh, String packageDir) throws SshFailure {
        List<String> command = new ArrayList<>(List.of(packageDir + "/bin/drover-agent", "install",
                "--master", String.join(",", plan.masters()), "--id", host.agentId(), "--enroll-token-file", "-",
                "--wait-seconds", Integer.toString(plan.waitSeconds())));
        add(command, "--ip", host.innerIp());
        add(command, "--master-finger", plan.masterFinger());
        add(command, "--publish-port", plan.publishPort() == null ? null : plan.publishPort().toString());
        add(command, "--prefix", host.prefix() != null ? host.prefix() : plan.prefix());
        add(command, "--service", plan.service());
        String line = String.join(" ", command.stream().map(HostInstall::quote).toList());
        begin("install", line);
        String token = needs.token(host.agentId());
        Result install = ssh.exec("install", line, new ByteArrayInputStream((token + "\n").getBytes(StandardCharsets.UTF_8)),
                LARGE_OUTPUT, Duration.ofSeconds(plan.waitSeconds() + 120L));
        List<String> lines = new ArrayList<>(LogLines.tail(install.out(), install.outDropped()));
        lines.addAll(LogLines.tail(install.err(), install.errDropped()));
        lines.forEach(l -> log("install", l));
        if (install.exit() == 2) {
            throw new SshFailure("install", "the installer refused its options: " + lastLine(install));
        }
        if (install.exit() == 0) {
            // exit 0: the installer waited for the agent's sign-in and saw it
            done("install", "installed");
            begin("sign_in", "the installer waited for the agent's sign-in");
            done("sign_in", "SIGNED_IN");
            return;
        }
        done("install", "installed (exit " + install.exit() + ")");
        begin("sign_in", "waiting for the agent to sign in");
        throw new SshFailure("sign_in", "the agent did not sign in: " + lastLine(install));
    }

    private static String lastLine(Result r) {
        String text = r.err().isBlank() ? r.out() : r.err();
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "exit " + r.exit() : LogLines.clean(lines.get(lines.size() - 1).strip(), 300);
    }

    private static void add(List<String> command, String option, String value) {
        if (value != null) {
            command.add(option);
            command.add(value);
        }
    }

    /** Single-quoted for a POSIX shell; values were checked before, this is a second wall. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static long size(AgentPackageFiles.PackageFile pkg) {
        try {
            return Files.size(pkg.path());
        } catch (IOException e) {
            return -1;
        }
    }

    private void begin(String name, String line) {
        steps.add(new AgentInstallStep(name, InstallStatus.RUNNING, OffsetDateTime.now(clock), null, new ArrayList<>(List.of(line))));
        save(InstallStatus.RUNNING, null);
    }

    private void log(String name, String line) {
        AgentInstallStep step = find(name);
        if (step != null && step.log().size() < LogLines.MAX_LINES * 3) {
            step.log().add(line);
        }
    }

    private void done(String name, String line) {
        end(name, InstallStatus.SUCCEEDED, line);
    }

    private void failStep(String name, String message) {
        if (find(name) == null) {
            steps.add(new AgentInstallStep(name, InstallStatus.RUNNING, OffsetDateTime.now(clock), null, new ArrayList<>()));
        }
        end(name, InstallStatus.FAILED, message);
    }

    private void end(String name, InstallStatus status, String line) {
        AgentInstallStep step = find(name);
        if (step == null) {
            return;
        }
        List<String> log = step.log();
        log.add(line);
        steps.set(steps.indexOf(step), new AgentInstallStep(name, status, step.startedAt(), OffsetDateTime.now(clock), log));
        // a step left running by a failure elsewhere is failed too
        if (status == InstallStatus.FAILED) {
            for (int i = 0; i < steps.size(); i++) {
                AgentInstallStep s = steps.get(i);
                if (s.status() == InstallStatus.RUNNING) {
                    steps.set(i, new AgentInstallStep(s.name(), InstallStatus.FAILED, s.startedAt(), OffsetDateTime.now(clock), s.log()));
                }
            }
        }
        save(InstallStatus.RUNNING, null);
    }

    private AgentInstallStep find(String name) {
        for (int i = steps.size() - 1; i >= 0; i--) {
            if (steps.get(i).name().equals(name)) {
                return steps.get(i);
            }
        }
        return null;
    }

    private void save(InstallStatus status, String error) {
        boolean finished = status.ended();
        store.saveHost(host.id(), status, error == null ? null : LogLines.clean(error, 2000), arch, version,
                List.copyOf(steps), started, finished ? OffsetDateTime.now(clock) : null);
    }
}
