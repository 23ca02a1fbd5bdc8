package io.drover.agent.install;

import java.util.Locale;

/** What keeps the installed agent running: systemd, a background process the installer started, or nothing. */
interface AgentService {
    /** The service managers; {@code word()} is the {@code --service} value and what {@code opt/drover-agent/service} holds. */
    enum Kind {
        SYSTEMD, PROCESS, NONE;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The kind a word names, or null. */
        static Kind of(String word) {
            for (Kind kind : values()) {
                if (kind.word().equals(word)) {
                    return kind;
                }
            }
            return null;
        }
    }

    Kind kind();

    /** Makes the agent run (and start at boot, where that applies); nothing when it runs. */
    void start() throws InstallFailed;

    /** Stops the agent; nothing when it does not run. */
    void stop() throws InstallFailed;

    /** Stops the agent and undoes what starts it (systemd: disabled, unit removed). */
    void remove() throws InstallFailed;

    /** Whether the agent runs (or its service manager is starting it again). */
    boolean running();

    /** One line: what runs the agent and how it stands. */
    String describe();

    /** Where the agent's output is. */
    String log();
}
