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
        if (args.length > 0 && args[0].equals("agent") && (args.length == 1 || args[1].startsWith("-"))) {
            // Running an agent (drover agent --master …): it is small and does not build the operator CLI's tree.
            // drover agent list|show|grains are operator commands.
            return new CommandLine(new AgentRunCommand()).execute(java.util.Arrays.copyOfRange(args, 1, args.length));
        }
        return commandLine().execute(args);
    }

    /** The whole command tree: the operator CLI, {@code server} and {@code quickstart}; -h/--help on every command. */
    public static CommandLine commandLine() {
        CommandLine cli = DroverCommand.commandLine();
        cli.addSubcommand("server", ServerCommand.commandLine());
        cli.addSubcommand("quickstart", new QuickstartCommand());
        return DroverCommand.withHelpOnEveryCommand(cli);
    }
}
