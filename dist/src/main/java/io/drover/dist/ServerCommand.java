package io.drover.dist;

import io.drover.server.DroverServer;
import io.drover.server.config.ConfigException;
import io.drover.server.config.ServerConfig;
import io.drover.server.config.Setting;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code drover server}: one option per {@link Setting}, so {@code --help} documents every setting with its
 * environment variable, {@code drover.yaml} key and default.
 */
final class ServerCommand implements Callable<Integer> {
    private CommandSpec spec;

    static CommandLine commandLine() {
        ServerCommand command = new ServerCommand();
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
        spec.name("server");
        spec.usageMessage().description("Run the Drover control plane.",
                "Settings come from, highest first: flags, DROVER_* environment variables, the config file "
                        + "(--config, $DROVER_CONFIG, else ./drover.yaml if present; keys as the flag names), defaults.");
        for (Setting s : Setting.values()) {
            OptionSpec.Builder option = OptionSpec.builder(s.flag()).paramLabel("VALUE").type(String.class);
            if (s.isSwitch()) {
                option.arity("0..1").fallbackValue("true");
            }
            spec.addOption(option
                    .description(s.description() + " [env " + s.envVar() + ", yaml '" + s.key() + "', default '"
                            + s.defaultValue() + "']").build());
        }
        spec.addOption(OptionSpec.builder("--config").paramLabel("FILE").type(Path.class)
                .description("Config file (YAML) [env " + ServerConfig.CONFIG_FILE_ENV + ", default ./drover.yaml].").build());
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help.").build());
        command.spec = spec;
        return new CommandLine(spec);
    }

    @Override
    public Integer call() throws InterruptedException {
        Map<Setting, String> flags = new EnumMap<>(Setting.class);
        for (Setting s : Setting.values()) {
            String value = spec.findOption(s.flag()).getValue();
            if (value != null) {
                flags.put(s, value);
            }
        }
        Path configFile = spec.findOption("--config").getValue();
        ServerConfig config;
        try {
            config = ServerConfig.load(flags, System.getenv(), configFile);
        } catch (ConfigException e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        }
        LogSetup.apply(config.logFormat());
        DroverServer server;
        try {
            server = DroverServer.start(config);
        } catch (RuntimeException e) {
            String reason = StartupFailure.explain(e, config.dataDir().toString(), config.port());
            if (reason == null) {
                throw e;
            }
            System.err.println("error: " + reason);
            return 1;
        }
        if (server.adminTokenFile() != null) {
            System.out.println("First start: the admin token is in " + server.adminTokenFile() + " (mode 0600).");
        }
        return runUntilStopped(server);
    }

    /** Blocks until the JVM is asked to stop (Ctrl-C, SIGTERM), then closes the server. */
    static int runUntilStopped(AutoCloseable server) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("error while stopping: " + e.getMessage());
            } finally {
                stopped.countDown();
            }
        }, "drover-shutdown"));
        stopped.await();
        return 0;
    }
}
