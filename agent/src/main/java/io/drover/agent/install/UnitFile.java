package io.drover.agent.install;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** {@code drover-agent.service}, rendered from the template resource beside this class. */
final class UnitFile {
    private UnitFile() {
    }

    /** The unit for an installation: ExecStart runs the current version with the installed configuration. */
    static String render(Layout layout) {
        String template;
        try (InputStream in = UnitFile.class.getResourceAsStream("drover-agent.service")) {
            if (in == null) {
                throw new IllegalStateException("the unit template drover-agent.service is missing from the agent's jar");
            }
            template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The paths hold only letters, digits and '._/+-' (InstallOptions checks --prefix): nothing systemd would
        // read as a quote, a specifier (%) or a separator.
        return template.replace("@LAUNCHER@", layout.launcher().toString()).replace("@CONFIG@", layout.config().toString());
    }
}
