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
        CommandLine cli = DroverCommand.commandLine();
        cli.addSubcommand("server", ServerCommand.commandLine());
        cli.addSubcommand("quickstart", new QuickstartCommand());
        cli.addSubcommand("agent", new AgentCommand());
        return cli.execute(args);
    }
}
