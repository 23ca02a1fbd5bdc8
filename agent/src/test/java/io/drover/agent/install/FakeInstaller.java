package io.drover.agent.install;

/** The installer's commands as the fake package's launcher runs them (see {@link FakePackage}). */
final class FakeInstaller {
    private FakeInstaller() {
    }

    public static void main(String[] args) {
        System.exit(InstallCommands.run(args, 0, System.out, System.err));
    }
}
