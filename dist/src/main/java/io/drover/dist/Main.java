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
            // Running an agent (drover agent --master …): its own small parser, no picocli (an idle agent keeps every
            // class it loaded). drover agent list|show|grains are operator commands.
            try {
                return AgentRunCommand.run(args, 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }
        return commandLine().execute(args);
    }

    /**
     * The whole command tree: the operator CLI, {@code server} and {@code quickstart}; -h/--help on every command. Not
     * public: the java launcher resolves the types of the main class's public methods when it looks for main, and a
     * public method returning CommandLine loaded picocli into every agent.
     */
    static CommandLine commandLine() {
        CommandLine cli = DroverCommand.commandLine();
        cli.addSubcommand("server", ServerCommand.commandLine());
        cli.addSubcommand("quickstart", new QuickstartCommand());
        cli.addSubcommand("db", new DbCommand());
        return DroverCommand.withHelpOnEveryCommand(cli);
    }
}
