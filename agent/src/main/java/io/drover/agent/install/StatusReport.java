package io.drover.agent.install;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;

/** {@code status}: the installed versions, the current one, the service's state and the last sign-in. */
final class StatusReport {
    private final Host host;
    private final PrintStream out;

    StatusReport(Host host, PrintStream out) {
        this.host = host;
        this.out = out;
    }

    /** 0 when installed and running (or run by another supervisor), 1 otherwise. */
    int status(InstallOptions o) {
        Layout layout = new Layout(o.prefix);
        List<String> versions = layout.installedVersions();
        Optional<String> current = layout.currentVersion();
        if (versions.isEmpty() && current.isEmpty()) {
            out.println("drover-agent is not installed" + Installer.where(layout));
            return 1;
        }
        AgentService service = Services.of(Services.choose("auto", layout, host), layout, host);
        out.println("installed:     " + String.join(", ", versions));
        out.println("current:       " + current.orElse("none (" + layout.current() + " names no installed version)"));
        out.println("service:       " + service.describe());
        out.println("last sign-in:  " + SignInWait.read(layout.signIn()).map(SignInWait.SignIn::line).orElse("none reported"));
        out.println("configuration: " + layout.config());
        out.println("log:           " + service.log());
        boolean running = service.kind() == AgentService.Kind.NONE || service.running();
        return current.isPresent() && running ? 0 : 1;
    }
}
