package io.drover.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options every client command takes: where the server is, the token, and the output format. */
public final class ClientOptions {
    public static final String DEFAULT_SERVER = "http://127.0.0.1:8080";

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--server", paramLabel = "URL", description = "Server URL (default: $DROVER_SERVER, else "
            + DEFAULT_SERVER + ").")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN", description = "API token (default: $DROVER_TOKEN, else the admin "
            + "token file of a local server: $DROVER_DATA_DIR/admin.token, ./data/admin.token, ./data/quickstart/admin.token).")
    String token;

    @Option(names = "--cacert", paramLabel = "FILE", description = "PEM file of the CA certificate(s) that signed the "
            + "server's certificate, trusted instead of the system's CAs for an https:// server (default: $DROVER_CACERT).")
    Path cacert;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", description = "Output: table (default), json or yaml.")
    Output.Format output = Output.Format.table;

    public ApiClient client() {
        String url = serverUrl();
        Path ca = caFile();
        return new ApiClient(url, token(), ca != null && url.regionMatches(true, 0, "https://", 0, 8) ? ca : null);
    }

    public Output output() {
        return new Output(output, out());
    }

    /** Where the command prints: the command line's output writer, so callers (and tests) can redirect it. */
    public PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Where progress goes: the command line's error writer, so that output stays clean for pipes. */
    public PrintWriter err() {
        return spec.commandLine().getErr();
    }

    String serverUrl() {
        String url = server != null ? server : System.getenv("DROVER_SERVER");
        return (url == null || url.isBlank() ? DEFAULT_SERVER : url).replaceAll("/+$", "");
    }

    /** The CA file of --cacert or $DROVER_CACERT, or null for the system's CAs. */
    Path caFile() {
        if (cacert != null) {
            return cacert;
        }
        String env = System.getenv("DROVER_CACERT");
        return env == null || env.isBlank() ? null : Path.of(env.strip());
    }

    String token() {
        if (token != null && !token.isBlank()) {
            return token.strip();
        }
        String env = System.getenv("DROVER_TOKEN");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        for (Path file : tokenFiles()) {
            if (Files.isReadable(file)) {
                try {
                    return Files.readString(file).strip();
                } catch (IOException e) {
                    throw new CliException("cannot read the token file " + file + ": " + e.getMessage());
                }
            }
        }
        return null;
    }

    private static List<Path> tokenFiles() {
        List<Path> files = new ArrayList<>();
        String dataDir = System.getenv("DROVER_DATA_DIR");
        if (dataDir != null && !dataDir.isBlank()) {
            files.add(Path.of(dataDir, "admin.token"));
        }
        files.add(Path.of("data", "admin.token"));
        files.add(Path.of("data", "quickstart", "admin.token"));
        return files;
    }
}
