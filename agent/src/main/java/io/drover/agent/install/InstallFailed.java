package io.drover.agent.install;

/** Something the installer cannot do: one line saying what is wrong and what to do (exit status 1). */
final class InstallFailed extends Exception {
    private static final long serialVersionUID = 1L;

    InstallFailed(String message) {
        super(message, null, false, false);
    }
}
