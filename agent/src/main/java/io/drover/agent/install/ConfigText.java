package io.drover.agent.install;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The agent's configuration file as install writes it: the agent's own format ({@code name: value} a line, the
 * option names without {@code --}), every value single-quoted, secrets only as the {@code *-file} settings naming
 * files under {@code etc/drover/secrets}. The same options give the same bytes, so an unchanged install changes
 * nothing.
 */
final class ConfigText {
    private ConfigText() {
    }

    /**
     * @param agent        the agent options in order: {name without "--", value}
     * @param token        whether an enrollment token file is referenced
     * @param amqpPassword whether an AMQP password file is referenced
     */
    static byte[] render(Layout layout, String id, List<String[]> agent, boolean token, boolean amqpPassword) {
        StringBuilder out = new StringBuilder(512);
        out.append("# The Drover agent's configuration, written by 'drover-agent install': run it again with other\n")
                .append("# options to change it. Secrets are in the files the *-file settings name, never here.\n");
        setting(out, "id", id);
        for (String[] option : agent) {
            setting(out, option[0], option[1]);
        }
        setting(out, "root", layout.agentRoot().toString());
        if (token) {
            setting(out, "enroll-token-file", layout.tokenFile().toString());
        }
        if (amqpPassword) {
            setting(out, "amqp-password-file", layout.amqpPasswordFile().toString());
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code name: 'value'} with {@code ''} for a quote (values hold no control characters: InstallOptions refuses them). */
    private static void setting(StringBuilder out, String name, String value) {
        out.append(name).append(": '").append(value.replace("'", "''")).append("'\n");
    }
}
