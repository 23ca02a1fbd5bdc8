package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH server on 127.0.0.1 for the tests: its own configuration, host key, authorized keys and pid file in
 * a directory of its own; root may log in with a key (the tests run as root); no PAM.
 */
final class Sshd implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/sbin/sshd");

    final Path dir;
    final int port;
    private final String extra;
    private Process process;

    private Sshd(Path dir, int port, String extra) {
        this.dir = dir;
        this.port = port;
        this.extra = extra;
    }

    /** Starts sshd in {@code dir} on {@code port}, authorizing {@code authorizedKeys}; {@code extra}: more configuration lines. */
    static Sshd start(Path dir, int port, Path authorizedKeys, String extra) throws Exception {
        Files.createDirectories(dir);
        Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(Path.of("/run/sshd"));
        Sshd sshd = new Sshd(dir, port, extra);
        sshd.newHostKey();
        Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                "ListenAddress 127.0.0.1",
                "HostKey " + dir.resolve("host_key"),
                "PidFile " + dir.resolve("sshd.pid"),
                "AuthorizedKeysFile " + authorizedKeys.toAbsolutePath(),
                "StrictModes no",
                "UsePAM no",
                "PermitRootLogin yes",
                "PasswordAuthentication yes",
                "KbdInteractiveAuthentication no",
                "MaxStartups 200",
                "MaxSessions 50",
                // each simulated host's root has a home of its own: the shell sshd starts for every command sources
                // ~/.bashrc, and this machine's root's (pyenv set-up) costs 0.6 CPU s a command; 20 hosts at once
                // spent their 30 s of "detect" waiting for the two cores. sshd takes the first SetEnv line only, so
                // the variables of extra's go on the same line.
                "SetEnv HOME=" + dir.resolve("home").toAbsolutePath() + (extra.startsWith("SetEnv ") ? extra.substring(6) : ""),
                extra.startsWith("SetEnv ") ? "" : extra, ""));
        sshd.launch();
        return sshd;
    }

    /** A new host key (the host was "reinstalled"); takes effect at the next {@link #restart()}. */
    void newHostKey() throws Exception {
        Files.deleteIfExists(dir.resolve("host_key"));
        Files.deleteIfExists(dir.resolve("host_key.pub"));
        keygen(dir.resolve("host_key"), "ecdsa");
    }

    void restart() throws Exception {
        stop();
        launch();
    }

    /** A new key pair of {@code type} (ecdsa, ed25519, rsa) without a passphrase at {@code file} (and file.pub). */
    static void keygen(Path file, String type) throws Exception {
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", type, "-N", "", "-f", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }

    private void launch() throws Exception {
        process = new ProcessBuilder(List.of(BINARY.toString(), "-D", "-e", "-f", dir.resolve("sshd_config").toString(),
                "-p", Integer.toString(port))).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("sshd.log").toFile())).start();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(this::listening);
    }

    private boolean listening() {
        if (!process.isAlive()) {
            try {
                throw new AssertionError("sshd ended: " + Files.readString(dir.resolve("sshd.log")));
            } catch (IOException e) {
                throw new AssertionError("sshd ended", e);
            }
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> !listening0());
        }
    }

    private boolean listening0() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
