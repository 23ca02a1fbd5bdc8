package io.drover.dist;

import io.drover.server.BuildVersion;

/**
 * Entry point of the agent package's {@code bin/drover-agent}: {@code run} starts the agent (the options of
 * {@code drover agent}); the other commands install and manage it on this host. No picocli on this path (an idle agent
 * keeps every class it loaded).
 */
public final class AgentMain {
    private AgentMain() {
    }

    public static void main(String[] args) {
        int code = run(args);
        if (args.length > 0 && args[0].equals("uninstall")) {
            // The package just removed may be the one this JVM runs from: a normal exit loads classes from its
            // runtime, and failed with "no jimage in system library path".
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
        System.exit(code);
    }

    static int run(String... args) {
        if (args.length == 0) {
            System.err.print(usage());
            return 2;
        }
        switch (args[0]) {
            case "run":
                try {
                    return AgentRunCommand.run(args, 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return 1;
                }
            case "install", "upgrade", "uninstall", "status":
                return io.drover.agent.install.InstallCommands.run(args, 0, System.out, System.err);
            case "--version", "version":
                System.out.println("drover-agent " + io.drover.agent.install.AgentHome.version(
                        io.drover.agent.install.AgentHome.fromSystem(), BuildVersion.current()));
                return 0;
            case "-h", "--help", "help":
                System.out.print(usage());
                return 0;
            default:
                System.err.println("drover-agent: unknown command " + AgentOptions.show(args[0]) + "; see drover-agent --help");
                return 2;
        }
    }

    static String usage() {
        return """
                Usage: drover-agent COMMAND [OPTIONS]
                  run          run the agent in the foreground (drover-agent run --help lists its options;
                               drover-agent run --config /etc/drover/agent.yaml is what the service runs)
                  install      install this package on this host as a service and wait until it signs in
                  upgrade      install a newer package beside it, switch to it, roll back if it does not sign in
                  uninstall    stop and remove the service and the package (--purge: its key, journal and config too)
                  status       the installed versions, the service and the last sign-in
                  --version    print the version
                Each command's --help has examples, e.g. drover-agent install --help.
                """;
    }
}
