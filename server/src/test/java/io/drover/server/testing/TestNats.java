package io.drover.server.testing;

import static org.awaitility.Awaitility.await;

import io.drover.server.config.Setting;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A {@code nats-server} of a test's own (Debian's package, on PATH or in /usr/sbin), on a free loopback port, with
 * the authorization its configuration gives. Skips the test when the binary is missing, except under CI ({@code CI}
 * set), where it fails.
 */
public final class TestNats implements AutoCloseable {
    /** The user the cluster's servers sign in as in {@link #withPassword}. */
    public static final String USER = "drover";

    private final Process process;
    private final int port;
    private final Path passwordFile;
    private final String password;

    private TestNats(Process process, int port, Path passwordFile, String password) {
        this.process = process;
        this.port = port;
        this.passwordFile = passwordFile;
        this.password = password;
    }

    /**
     * A NATS that admits only user {@value #USER} with a fresh random password, written to a file in {@code dir}
     * (what a cluster's servers are given as cluster-user and cluster-password-file), on Drover's subjects only, as
     * docs/operations.md configures it.
     */
    public static TestNats withPassword(Path dir) {
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        Path file = dir.resolve("nats.password");
        write(file, password + "\n");
        return start(dir, "authorization {\n  users = [ { user: " + USER + ", password: \"" + password + "\",\n"
                + "    permissions: { publish: \"drover.>\", subscribe: \"drover.>\" } } ]\n}\n", file, password);
    }

    /** A NATS with the given configuration (besides its listening address), e.g. an {@code authorization} block. */
    public static TestNats start(Path dir, String configuration) {
        return start(dir, configuration, null, null);
    }

    private static TestNats start(Path dir, String configuration, Path passwordFile, String password) {
        Path binary = binary();
        int port = TestServer.freePort();
        Path config = dir.resolve("nats-" + port + ".conf");
        write(config, "listen: 127.0.0.1:" + port + "\n" + configuration);
        Process process;
        try {
            process = new ProcessBuilder(binary.toString(), "-c", config.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("nats-" + port + ".log").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        TestNats nats = new TestNats(process, port, passwordFile, password);
        try {
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("nats-server stopped; see " + dir.resolve("nats-" + port + ".log"));
                }
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
        } catch (RuntimeException e) {
            nats.close();
            throw e;
        }
        return nats;
    }

    private static Path binary() {
        Optional<Path> found = Stream.concat(Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)),
                        Stream.of("/usr/sbin", "/usr/local/bin", "/usr/local/sbin"))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, "nats-server")).filter(Files::isExecutable).findFirst();
        if (found.isEmpty() && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but nats-server is not installed (apt-get install nats-server)");
        }
        Assumptions.assumeTrue(found.isPresent(), "nats-server is not installed");
        return found.get();
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "nats://127.0.0.1:" + port;
    }

    /** The URL with the user and password in it ({@link #withPassword} only). */
    public String urlWithPassword() {
        return "nats://" + USER + ":" + password + "@127.0.0.1:" + port;
    }

    /** The credentials of {@value #USER} as a server is given them ({@link #withPassword} only). */
    public io.drover.server.cluster.NatsCredentials credentials() {
        return new io.drover.server.cluster.NatsCredentials(USER, passwordFile, null, null, null, null, null, false, false);
    }

    /** The settings that join a server to this NATS as {@value #USER} ({@link #withPassword} only). */
    public Map<Setting, String> clusterSettings() {
        return Map.of(Setting.CLUSTER, url(), Setting.CLUSTER_USER, USER, Setting.CLUSTER_PASSWORD_FILE, passwordFile.toString());
    }

    /** The same flags for a server process. */
    public java.util.List<String> clusterFlags() {
        return java.util.List.of("--cluster", url(), "--cluster-user", USER, "--cluster-password-file", passwordFile.toString());
    }

    /** A client holding the servers' own NATS account, as an attacker who stole it would ({@link #withPassword} only). */
    public Connection connectWithTheServersAccount() throws IOException, InterruptedException {
        return Nats.connect(Options.builder().server(url()).userInfo(USER, password).build());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
