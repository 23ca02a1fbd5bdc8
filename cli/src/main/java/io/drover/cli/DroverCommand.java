package io.drover.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code drover} command tree for operators. The distribution adds {@code server} and {@code quickstart}. */
@Command(name = "drover", mixinStandardHelpOptions = true, versionProvider = DroverCommand.VersionProvider.class,
        description = "Drover fleet manager.",
        subcommands = {InventoryCommand.class, BizCommand.class, HostCommand.class, ServiceCommand.class,
                EventsCommand.class, TokenCommand.class, AuditCommand.class, KeyCommand.class, EnrollCommand.class,
                AgentCommand.class, RunCommand.class, PluginCommand.class, RegistryCommand.class, AddonCommand.class, SubCommand.class, TaskCommand.class, CommandLine.HelpCommand.class})
public final class DroverCommand {

    /** Builds the command line with Drover's error handling: "error: ..." on stderr and exit code 1. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new DroverCommand());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof CliException) {
                commandLine.getErr().println("error: " + e.getMessage());
                return 1;
            }
            throw e;
        });
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
