package io.drover.agent.install;

import io.drover.transport.protocol.Messages;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code install} and {@code upgrade}: the package copied to {@code versions/<version>}, {@code current} pointed at
 * it, state, configuration and secrets written, the service (re)started, and a wait for the sign-in. Both change
 * only what differs: install run again with the same options changes nothing and says so.
 */
final class Installer {
    /** The largest secret read (as the agent's own limit). */
    private static final int MAX_SECRET = 64 * 1024;

    private final Host host;
    private final PrintStream out;

    Installer(Host host, PrintStream out) {
        this.host = host;
        this.out = out;
    }

    int install(InstallOptions o) throws InstallFailed {
        Layout layout = new Layout(o.prefix);
        String id = o.id != null ? o.id : hostId();
        // Secrets first: nothing changes on the host when one cannot be read.
        byte[] token = o.tokenFile == null ? null : secret("the enrollment token", o.tokenFile);
        byte[] amqpPassword = o.amqpPasswordFile == null ? null : secret("the AMQP password", o.amqpPasswordFile.toString());
        AgentPackage pkg = AgentPackage.open(packageDir(o));
        pkg.requireArch(host.arch());
        Optional<String> current = layout.currentVersion();
        if (current.isPresent() && !current.get().equals(pkg.version())) {
            throw new InstallFailed("drover-agent " + current.get() + " is installed; 'drover-agent upgrade --package "
                    + pkg.dir() + "' moves it to " + pkg.version());
        }
        AgentService.Kind kind = Services.choose(o.service, layout, host);

        SafeFiles.directory(layout.opt(), "rwxr-xr-x");
        SafeFiles.directory(layout.versions(), "rwxr-xr-x");
        SafeFiles.directory(layout.state(), "rwx------");
        if (!Files.isDirectory(layout.etc())) {
            SafeFiles.directory(layout.etc(), "rwxr-xr-x");
        }
        SafeFiles.directory(layout.secrets(), "rwx------");
        boolean changed = copyPackage(pkg, layout);
        changed |= SafeFiles.pointLink(layout.current(), Path.of("versions", pkg.version()));
        changed |= keepSecret(layout.tokenFile(), token);
        changed |= keepSecret(layout.amqpPasswordFile(), amqpPassword);
        changed |= SafeFiles.write(layout.config(), ConfigText.render(layout, id, o.agent, token != null, amqpPassword != null),
                "rw-------");
        Optional<AgentService.Kind> before = Services.recorded(layout);
        if (before.isPresent() && before.get() != kind) {
            Services.of(before.get(), layout, host).remove();
            changed = true;
        }
        changed |= SafeFiles.write(layout.serviceKind(), (kind.word() + "\n").getBytes(StandardCharsets.US_ASCII), "rw-r--r--");
        AgentService service = Services.of(kind, layout, host);
        if (service instanceof Systemd systemd) {
            changed |= systemd.writeUnit(UnitFile.render(layout));
        }

        if (kind == AgentService.Kind.NONE) {
            out.println(changed ? "drover-agent " + pkg.version() + " installed in " + layout.opt()
                    : "drover-agent " + pkg.version() + " is already installed; nothing changed");
            out.println((host.systemdRunning() ? "no service manager was asked for (--service none)"
                    : "systemd is not running here") + "; run the agent under your own supervisor as:");
            out.println("  " + String.join(" ", layout.runCommand()));
            out.println("(or install with --service process to have the installer start it in the background)");
            return 0;
        }
        if (!changed && service.running()) {
            out.println("drover-agent " + pkg.version() + " is already installed and running; nothing changed");
            if (o.waitSeconds == 0) {
                return 0;
            }
            // not restarted: whatever the running agent last reported counts
            SignInWait.Outcome signIn = SignInWait.await(layout, service, Instant.EPOCH, Duration.ofSeconds(o.waitSeconds),
                    host, id);
            if (!signIn.signedIn()) {
                throw new InstallFailed("drover-agent " + pkg.version() + " runs but is not signed in: " + signIn.line());
            }
            out.println("the agent " + signIn.line());
            return 0;
        }
        SignInWait.Outcome signIn = restartAndWait(layout, service, o.waitSeconds, id);
        if (o.waitSeconds == 0) {
            out.println("drover-agent " + pkg.version() + " installed and started (" + service.describe()
                    + "); not waiting for its sign-in");
            return 0;
        }
        if (!signIn.signedIn()) {
            throw new InstallFailed("drover-agent " + pkg.version() + " is installed but did not sign in: " + signIn.line());
        }
        out.println("drover-agent " + pkg.version() + " installed as " + id + " and " + signIn.line());
        return 0;
    }

    int upgrade(InstallOptions o) throws InstallFailed {
        Layout layout = new Layout(o.prefix);
        String from = layout.currentVersion().orElseThrow(() -> new InstallFailed("drover-agent is not installed"
                + where(layout) + "; 'drover-agent install' installs it"));
        AgentPackage pkg = AgentPackage.open(packageDir(o));
        pkg.requireArch(host.arch());
        String to = pkg.version();
        if (to.equals(from)) {
            if (isInstalledCopy(pkg, layout) || SafeFiles.sameTree(pkg.dir(), layout.version(from))) {
                out.println("drover-agent " + from + " is installed already; nothing to upgrade");
                return 0;
            }
            throw new InstallFailed("version " + from + " is installed from another build: an upgrade needs a package "
                    + "with another version (the old one stays beside it for a rollback)");
        }
        AgentService service = Services.of(Services.choose("auto", layout, host), layout, host);
        String id = configuredId(layout);
        SafeFiles.deleteTree(layout.version(to)); // what a failed upgrade to this version left
        copyPackage(pkg, layout);
        if (service instanceof Systemd systemd) {
            systemd.writeUnit(UnitFile.render(layout));
        }
        SafeFiles.pointLink(layout.current(), Path.of("versions", to));
        if (service.kind() == AgentService.Kind.NONE) {
            out.println("drover-agent " + to + " is now current (was " + from + "); restart the agent under your supervisor: "
                    + String.join(" ", layout.runCommand()));
            return 0;
        }
        SignInWait.Outcome signIn = restartAndWait(layout, service, o.waitSeconds, id);
        if (signIn.signedIn()) {
            prune(layout, to, from);
            out.println("drover-agent upgraded from " + from + " to " + to + " and " + signIn.line());
            return 0;
        }
        SafeFiles.pointLink(layout.current(), Path.of("versions", from));
        // The version that ran before gets at least the default wait: a short --wait-seconds was meant for the new one.
        int rollbackWait = Math.max(o.waitSeconds, InstallOptions.DEFAULT_WAIT_SECONDS);
        SignInWait.Outcome back = restartAndWait(layout, service, rollbackWait, id);
        SafeFiles.deleteTree(layout.version(to));
        throw new InstallFailed("the upgrade to " + to + " failed (" + signIn.line() + "); rolled back to " + from
                + (back.signedIn() ? ", which " + back.line() : ", which did not sign in either: " + back.line()));
    }

    /**
     * Stops the agent if it runs, starts it, and waits for the new process to sign in (not with {@code --wait-seconds
     * 0}). Stopped first and only then the status file removed: what the file says after the start is the new
     * process's word, never the old one's.
     */
    private SignInWait.Outcome restartAndWait(Layout layout, AgentService service, int waitSeconds, String id)
            throws InstallFailed {
        service.stop();
        Instant since = host.clock().instant();
        SafeFiles.delete(layout.signIn());
        service.start();
        if (waitSeconds == 0) {
            return new SignInWait.Outcome(true, "was started (not waiting for its sign-in)");
        }
        return SignInWait.await(layout, service, since, Duration.ofSeconds(waitSeconds), host, id);
    }

    /**
     * Copies the package to {@code versions/<version>} unless that already holds it; a different build of the same
     * version replaces it (the new copy moved in, the old one removed). True when it copied.
     */
    private static boolean copyPackage(AgentPackage pkg, Layout layout) throws InstallFailed {
        Path target = layout.version(pkg.version());
        if (isInstalledCopy(pkg, layout)) {
            return false;
        }
        boolean exists = Files.exists(target, LinkOption.NOFOLLOW_LINKS);
        if (exists && SafeFiles.sameTree(pkg.dir(), target)) {
            return false;
        }
        Path fresh = layout.versions().resolve("." + pkg.version() + ".new");
        Path old = layout.versions().resolve("." + pkg.version() + ".old");
        SafeFiles.deleteTree(fresh);
        SafeFiles.deleteTree(old);
        SafeFiles.copyTree(pkg.dir(), fresh);
        try {
            if (exists) {
                Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(fresh, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new InstallFailed("cannot move the package into " + target + ": " + e);
        }
        SafeFiles.deleteTree(old);
        return true;
    }

    /** Whether the package is the installed copy itself (drover-agent install run from /opt/drover-agent/current). */
    private static boolean isInstalledCopy(AgentPackage pkg, Layout layout) {
        try {
            Path target = layout.version(pkg.version());
            return Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS) && pkg.dir().equals(target.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /** Keeps the versions {@code current} and {@code previous}; older ones go. */
    private static void prune(Layout layout, String current, String previous) throws InstallFailed {
        for (String version : layout.installedVersions()) {
            if (!version.equals(current) && !version.equals(previous)) {
                SafeFiles.deleteTree(layout.version(version));
            }
        }
    }

    /** Writes a secret (0600) when given and different; removes the file when none is given. True when it changed. */
    private static boolean keepSecret(Path file, byte[] secret) throws InstallFailed {
        return secret == null ? SafeFiles.delete(file) : SafeFiles.write(file, secret, "rw-------");
    }

    /** A secret from a file or, for "-", standard input: its first line, stripped, with a newline. */
    private byte[] secret(String what, String source) throws InstallFailed {
        byte[] bytes;
        if (source.equals("-")) {
            bytes = SafeFiles.readAtMost(host.stdin(), MAX_SECRET, what + " on standard input");
        } else {
            try (InputStream in = Files.newInputStream(Path.of(source))) {
                bytes = SafeFiles.readAtMost(in, MAX_SECRET, what + " file " + source);
            } catch (IOException e) {
                throw new InstallFailed(what + " file " + InstallOptions.show(source) + " cannot be read");
            }
        }
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        int newline = text.indexOf('\n');
        String first = (newline < 0 ? text : text.substring(0, newline)).strip();
        if (first.isEmpty()) {
            throw new InstallFailed(what + (source.equals("-") ? " on standard input" : " file " + InstallOptions.show(source))
                    + " is empty");
        }
        for (int i = 0; i < first.length(); i++) {
            if (Character.isISOControl(first.charAt(i)) || first.charAt(i) == '\uFFFD') {
                throw new InstallFailed(what + " holds control characters or is not UTF-8 text");
            }
        }
        return (first + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private Path packageDir(InstallOptions o) throws InstallFailed {
        if (o.packageDir != null) {
            return o.packageDir;
        }
        if (host.home() == null) {
            throw new InstallFailed("no package to install: give --package DIR (the unpacked drover-agent-<version>-linux-<arch>)");
        }
        return host.home();
    }

    private String hostId() throws InstallFailed {
        String name = host.hostname();
        if (name == null || !Messages.validId(name)) {
            throw new InstallFailed("the host name " + InstallOptions.show(name) + " is not a valid agent id; give --id ID");
        }
        return name;
    }

    /** The id in the installed configuration (for messages), or "<id>". */
    private static String configuredId(Layout layout) {
        try {
            for (String line : Files.readAllLines(layout.config(), StandardCharsets.UTF_8)) {
                if (line.startsWith("id: '") && line.endsWith("'")) {
                    String id = line.substring(5, line.length() - 1);
                    return Messages.validId(id) ? id : "<id>";
                }
            }
        } catch (IOException | RuntimeException e) {
            // a message without the id
        }
        return "<id>";
    }

    static String where(Layout layout) {
        return layout.prefix().equals(Path.of("/")) ? "" : " under " + layout.prefix();
    }
}
