package io.drover.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** The {@code drover} command tree for operators. The distribution adds {@code server} and {@code quickstart}. */
@Command(name = "drover", mixinStandardHelpOptions = true, versionProvider = DroverCommand.VersionProvider.class,
        description = "Drover fleet manager.",
        subcommands = {InventoryCommand.class, BizCommand.class, HostCommand.class, ServiceCommand.class,
                EventsCommand.class, TokenCommand.class, AuditCommand.class, KeyCommand.class, EnrollCommand.class,
                AgentCommand.class, AgentPackageCommand.class, RunCommand.class, JobCommand.class, PluginCommand.class, RegistryCommand.class, AddonCommand.class, SubCommand.class, SecretCommand.class, TaskCommand.class, PlanCommand.class, DiagCommand.class, CommandLine.HelpCommand.class})
public final class DroverCommand {

    /** Builds the command line with Drover's error handling: "error: ..." on stderr and exit code 1. */
    public static CommandLine commandLine() {
        return commandLine(new java.io.OutputStreamWriter(System.out, System.out.charset()),
                new java.io.OutputStreamWriter(System.err, System.err.charset()));
    }

    /**
     * The command line writing to {@code out} and {@code err} through {@link TerminalSafeWriter}: what hosts wrote
     * cannot drive the operator's terminal. Help is plain text (no colour sequences to filter).
     */
    public static CommandLine commandLine(java.io.Writer out, java.io.Writer err) {
        CommandLine cli = new CommandLine(new DroverCommand());
        cli.setOut(new java.io.PrintWriter(new TerminalSafeWriter(out), true));
        cli.setErr(new java.io.PrintWriter(new TerminalSafeWriter(err), true));
        cli.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof CliException) {
                commandLine.getErr().println("error: " + e.getMessage());
                return 1;
            }
            throw e;
        });
        cli.setExecutionStrategy(DroverCommand::refuseUnmatched);
        return withHelpOnEveryCommand(cli);
    }

    /**
     * Runs the command named last, unless words were left unmatched: picocli lets -h/--help hide them, so that
     * {@code drover nosuch --help} printed the top-level help and exited 0 where {@code drover nosuch} exits 2.
     */
    private static int refuseUnmatched(CommandLine.ParseResult parseResult) {
        CommandLine.ParseResult last = parseResult;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        if (!last.unmatched().isEmpty()) {
            throw new CommandLine.UnmatchedArgumentException(last.commandSpec().commandLine(), last.unmatched());
        }
        return new CommandLine.RunLast().execute(parseResult);
    }

    /** Gives every command and group -h/--help: picocli gives it only to commands that declare it. */
    public static CommandLine withHelpOnEveryCommand(CommandLine cli) {
        CommandSpec spec = cli.getCommandSpec();
        if (spec.findOption("--help") == null) {
            spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help and exit.").build());
        }
        cli.getSubcommands().values().forEach(DroverCommand::withHelpOnEveryCommand);
        return cli;
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = DroverCommand.class.getPackage().getImplementationVersion();
            return new String[] {"drover " + (version == null ? "dev" : version)};
        }
    }
}
