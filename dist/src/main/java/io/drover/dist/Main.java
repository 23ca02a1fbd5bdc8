package io.drover.dist;

import io.drover.cli.DroverCommand;
import picocli.CommandLine;

/** Entry point of the {@code drover} launcher: the operator CLI plus {@code server} and {@code quickstart}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        if (args.length > 0 && args[0].equals("agent")) {
            // The agent is small: it does not build the operator CLI's command tree.
            return new CommandLine(new AgentCommand()).execute(java.util.Arrays.copyOfRange(args, 1, args.length));
        }
        CommandLine cli = DroverCommand.commandLine();
        cli.addSubcommand("server", ServerCommand.commandLine());
        cli.addSubcommand("quickstart", new QuickstartCommand());
        cli.addSubcommand("agent", new AgentCommand());
        return cli.execute(args);
    }
}
