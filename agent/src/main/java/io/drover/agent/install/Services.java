package io.drover.agent.install;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/** Which {@link AgentService} runs an installation: the one asked for, else the one install chose, else by the host. */
final class Services {
    private Services() {
    }

    /**
     * {@code --service auto} keeps what install chose before (so that running install again changes nothing); on a
     * first install it is systemd when systemd runs and the prefix is {@code /}, else none.
     */
    static AgentService.Kind choose(String option, Layout layout, Host host) {
        AgentService.Kind asked = AgentService.Kind.of(option);
        if (asked != null) {
            return asked;
        }
        return recorded(layout).orElse(host.systemdRunning() && layout.prefix().equals(Path.of("/"))
                ? AgentService.Kind.SYSTEMD : AgentService.Kind.NONE);
    }

    /** The kind install wrote to {@code opt/drover-agent/service}, if any. */
    static Optional<AgentService.Kind> recorded(Layout layout) {
        try (InputStream in = Files.newInputStream(layout.serviceKind(), LinkOption.NOFOLLOW_LINKS)) {
            return Optional.ofNullable(AgentService.Kind.of(new String(in.readNBytes(32), StandardCharsets.US_ASCII).strip()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static AgentService of(AgentService.Kind kind, Layout layout, Host host) {
        return switch (kind) {
            case SYSTEMD -> new Systemd(layout, host.systemctl());
            case PROCESS -> new BackgroundProcess(layout, host.stopGrace());
            case NONE -> new Unsupervised(layout);
        };
    }
}
