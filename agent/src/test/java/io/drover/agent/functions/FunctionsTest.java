package io.drover.agent.functions;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.agent.supervisor.Supervisor;
import io.drover.core.archive.TarWriter;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FunctionsTest {
    @TempDir
    Path root;
    @TempDir
    Path served;
    Supervisor supervisor;
    Functions functions;

    /** Serves files from a local directory, checking sha256 as the fileserver source does. */
    FileSource localFiles() {
        return (path, sha256) -> {
            Path file = served.resolve(path);
            if (!Files.exists(file)) {
                throw new java.io.IOException("the server has no file '" + path + "'");
            }
            String actual = sha256(Files.readAllBytes(file));
            if (!actual.equals(sha256)) {
                throw new java.io.IOException("'" + path + "' has sha256 " + actual + ", not " + sha256);
            }
            Path copy = Files.createTempFile("pkg", ".tgz");
            Files.copy(file, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return copy;
        };
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeEach
    void start() {
        supervisor = new Supervisor(root.resolve("var/lib/drover-agent"), root, name -> { });
        functions = new Functions(() -> Map.of("id", "a1", "os", "Debian"), "1.0", root, supervisor, localFiles(),
                jid -> jid.equals("20260101000000000001") ? Map.of("jid", jid, "fun", "cmd.run") : null);
    }

    @AfterEach
    void stop() {
        supervisor.close();
    }

    static Map<String, Object> kw(Object... pairs) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], pairs[i + 1]);
        }
        m.put("__kwarg__", true);
        return m;
    }

    @Test
    void everyCallOfTheContractHasAHandler() {
        assertThat(functions.handled()).containsExactlyInAnyOrder(io.drover.model.agentapi.AgentCall.class.getPermittedSubclasses());
    }

    @Test
    void saltFunctions() {
        assertThat(functions.call("test.ping", List.of()).value()).isEqualTo(true);
        assertThat(functions.call("test.echo", List.of("hi")).value()).isEqualTo("hi");
        assertThat(functions.call("grains.item", List.of("os", "nope")).value()).isEqualTo(new java.util.LinkedHashMap<>(
                java.util.Map.of("os", "Debian")) {{ put("nope", null); }});
        assertThat(functions.call("saltutil.find_job", List.of("20260101000000000001")).value()).isEqualTo(
                Map.of("jid", "20260101000000000001", "fun", "cmd.run"));
        assertThat(functions.call("saltutil.find_job", List.of("20260101000000000002")).value()).isEqualTo(Map.of());
        assertThat(functions.call("nope.nope", List.of()).retcode()).isEqualTo(254);
    }

    @Test
    void filesAreWrittenUnderTheRootOnly() throws Exception {
        var written = functions.call("file.write", List.of("/etc/drover/x.conf", "a=1\n", kw("mode", "0600")));
        assertThat(written.retcode()).as(String.valueOf(written.value())).isZero();
        assertThat(Files.readString(root.resolve("etc/drover/x.conf"))).isEqualTo("a=1\n");
        assertThat(((Map<?, ?>) written.value()).get("md5")).isEqualTo(HexFormat.of().formatHex(
                MessageDigest.getInstance("MD5").digest("a=1\n".getBytes(StandardCharsets.UTF_8))));
        assertThat(Files.getPosixFilePermissions(root.resolve("etc/drover/x.conf"))).hasSize(2);
        var escaping = functions.call("file.write", List.of("../../escape.txt", "x"));
        assertThat(escaping.retcode()).isEqualTo(1);
        assertThat(String.valueOf(escaping.value())).contains("leaves the agent root");
        assertThat(functions.call("file.write", List.of()).value()).isEqualTo("file.write: 'path' is required");
        assertThat(functions.call("file.write", List.of("x", "y", kw("mode", "rw"))).value().toString()).contains("not an octal mode");
        assertThat(functions.call("file.remove", List.of("/etc/drover/x.conf")).value()).isEqualTo(
                Map.of("path", "/etc/drover/x.conf", "removed", true));
        assertThat(root.resolve("etc/drover/x.conf")).doesNotExist();
    }

    @Test
    void usedPortsSeeAListeningSocket() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            @SuppressWarnings("unchecked")
            List<Integer> ports = (List<Integer>) functions.call("sys.used_ports", List.of()).value();
            assertThat(ports).contains(socket.getLocalPort());
        }
        assertThat(ListeningPorts.parse(List.of("  sl  local_address rem_address   st",
                "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  0 0 1 1",
                "   1: 0100007F:1F91 0100007F:9999 01 00000000:00000000 00:00000000 00000000  0 0 1 1"))).containsExactly(8080);
    }

    @Test
    void packagesAreInstalledOnlyWithTheRightSha256() throws Exception {
        Path pkg = served.resolve("exporter-1.0.0.tgz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(pkg)); TarWriter tar = new TarWriter(out)) {
            tar.file("bin/exporter", 0755, "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8));
        }
        String sha = sha256(Files.readAllBytes(pkg));
        var ok = functions.call("plugin.install_package", List.of("exporter-1.0.0.tgz", sha, "/usr/local/gse/external_plugins/1/exporter"));
        assertThat(ok.retcode()).as(String.valueOf(ok.value())).isZero();
        assertThat(root.resolve("usr/local/gse/external_plugins/1/exporter/bin/exporter")).isExecutable();
        var wrong = functions.call("plugin.install_package", List.of("exporter-1.0.0.tgz", "0".repeat(64), "/opt/x"));
        assertThat(wrong.retcode()).isEqualTo(1);
        assertThat(wrong.value().toString()).contains("has sha256");
        assertThat(root.resolve("opt/x")).doesNotExist();
        assertThat(functions.call("plugin.install_package", List.of("exporter-1.0.0.tgz", "xyz", "/opt/x")).value().toString())
                .contains("not 64 hex digits");
        assertThat(functions.call("plugin.install_package", List.of("exporter-1.0.0.tgz", sha, "../../x")).value().toString())
                .contains("leaves the agent root");
        assertThat(functions.call("plugin.remove", List.of("/usr/local/gse/external_plugins/1/exporter")).retcode()).isZero();
        assertThat(root.resolve("usr/local/gse/external_plugins/1/exporter")).doesNotExist();
    }
}
