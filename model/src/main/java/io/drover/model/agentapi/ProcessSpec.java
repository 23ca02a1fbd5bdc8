package io.drover.model.agentapi;

/**
 * A registered process, as GSE's process management knows it: where it lives, its pid file, its control commands,
 * and whether the agent keeps it alive ({@code delegate}). Paths are under the agent's root; commands run with
 * {@code /bin/sh -c} in {@code setupPath}. {@code user} is honoured only when the agent runs as root (see
 * the agent's supervisor); stop, restart, reload, version and health commands are optional.
 */
public record ProcessSpec(String name, String setupPath, String pidPath, String user, String startCmd, String stopCmd,
                          String restartCmd, String reloadCmd, String versionCmd, String healthCmd, boolean delegate) {

    public ProcessSpec withDelegate(boolean keepAlive) {
        return new ProcessSpec(name, setupPath, pidPath, user, startCmd, stopCmd, restartCmd, reloadCmd, versionCmd,
                healthCmd, keepAlive);
    }
}
