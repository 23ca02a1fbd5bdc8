package io.drover.agent.install;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * {@code uninstall}: stops the agent, removes its service and {@code opt/drover-agent}; with {@code --purge} also its
 * state (key, journal), configuration, secrets and log. Nothing installed is not an error.
 */
final class Uninstaller {
    private final Host host;
    private final PrintStream out;

    Uninstaller(Host host, PrintStream out) {
        this.host = host;
        this.out = out;
    }

    int uninstall(InstallOptions o) throws InstallFailed {
        Layout layout = new Layout(o.prefix);
        boolean installed = exists(layout.opt()) || exists(layout.unit()) || exists(layout.pidFile());
        boolean kept = exists(layout.state()) || exists(layout.config()) || exists(layout.secrets()) || exists(layout.logDir());
        if (!installed && !(o.purge && kept)) {
            out.println("drover-agent is not installed" + Installer.where(layout) + "; nothing to remove");
            return 0;
        }
        AgentService.Kind kind = Services.choose("auto", layout, host);
        Services.of(kind, layout, host).remove();
        if (kind != AgentService.Kind.PROCESS) {
            new BackgroundProcess(layout, host.stopGrace()).stop(); // one an earlier --service process started
        }
        if (kind != AgentService.Kind.SYSTEMD && exists(layout.unit())) {
            if (host.systemdRunning()) {
                new Systemd(layout, host.systemctl()).remove();
            } else {
                SafeFiles.delete(layout.unit());
            }
        }
        SafeFiles.deleteTree(layout.opt());
        if (!o.purge) {
            out.println("drover-agent removed" + Installer.where(layout) + "; kept its state (key, journal) in "
                    + layout.state() + " and its configuration in " + layout.etc() + ": 'uninstall --purge' removes them too");
            return 0;
        }
        SafeFiles.deleteTree(layout.state());
        SafeFiles.delete(layout.config());
        SafeFiles.deleteTree(layout.secrets());
        SafeFiles.deleteTree(layout.logDir());
        try {
            Files.deleteIfExists(layout.etc()); // only when empty: other tools of Drover may keep files there
        } catch (IOException e) {
            // not empty
        }
        out.println("drover-agent removed" + Installer.where(layout) + " with its state, configuration and secrets");
        return 0;
    }

    private static boolean exists(Path path) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }
}
