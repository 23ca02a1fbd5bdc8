package io.drover.agent.functions;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.agent.supervisor.Supervisor;
import io.drover.core.archive.TarWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Functions against hostile or malformed input: errors with reasons, nothing written where it should not be. */
class FunctionsSafetyTest {
    @TempDir
    Path root;
    @TempDir
    Path served;
    @TempDir
    Path outside;
    @TempDir
    Path fetched;
    Supervisor supervisor;
    Functions functions;
    /** A file source that does not check anything: the functions must. */
    boolean lyingSource;

    @BeforeEach
    void start() throws IOException {
        Files.writeString(root.resolve("keep.txt"), "keep");
        supervisor = new Supervisor(root.resolve("var/lib/drover-agent"), root, new Supervisor.Options(Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofMillis(50)), java.time.Clock.systemUTC());
        FileSource source = (path, sha256) -> {
            Path file = served.resolve(path);
            if (!lyingSource && !FunctionsTest.sha256(Files.readAllBytes(file)).equals(sha256)) {
                throw new IOException("'" + path + "' has another sha256");
            }
            Path copy = Files.createTempFile(fetched, "fetched", ".part");
            Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
            return copy;
        };
        functions = new Functions(Map::of, "1.0", root, supervisor, source, jid -> null);
    }

    @AfterEach
    void stop() {
        supervisor.close();
    }

    static Map<String, Object> kw(Object... pairs) {
        return FunctionsTest.kw(pairs);
    }

    Functions.Result call(String fun, Object... args) {
        return functions.call(fun, Arrays.asList(args));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Functions.Result result) {
        return (Map<String, Object>) result.value();
    }

    static void assertError(Functions.Result result, String... parts) {
        assertThat(result.retcode()).as(String.valueOf(result.value())).isNotZero();
        assertThat(result.value()).isInstanceOf(String.class);
        assertThat((String) result.value()).contains(parts);
    }

    @Test
    void theRootItselfIsNeverRemovedOrOverwritten() {
        for (String path : List.of("/", ".", "//", "usr/..", "/./")) {
            assertError(call("file.remove", path), "is the agent root itself");
            assertError(call("plugin.remove", path), "is the agent root itself");
            assertError(call("file.write", path, "x"), "is the agent root itself");
            assertError(call("plugin.install_package", "p.tgz", "0".repeat(64), path), "is the agent root itself");
        }
        for (String path : List.of("../x", "/../x", "a/../../x", "/usr/../../etc/passwd")) {
            assertError(call("file.remove", path), "leaves the agent root");
            assertError(call("plugin.remove", path), "leaves the agent root");
            assertError(call("file.write", path, "x"), "leaves the agent root");
        }
        assertThat(root.resolve("keep.txt")).hasContent("keep");
    }

    @Test
    void removingALinkRemovesTheLinkNotWhatItPointsTo() throws IOException {
        Files.writeString(outside.resolve("precious"), "p");
        Files.createSymbolicLink(root.resolve("link"), outside);
        assertThat(call("file.remove", "/link").retcode()).isZero();
        assertThat(root.resolve("link")).doesNotExist();
        assertThat(outside.resolve("precious")).hasContent("p");
        assertThat(call("file.remove", "/nothing/here").value()).isEqualTo(Map.of("path", "/nothing/here", "removed", false));
    }

    @Test
    void writeFromTheFileserverIsVerifiedAndKeepsTheModeOfWhatItReplaces() throws Exception {
        Files.writeString(served.resolve("conf.yaml"), "port: 9100\n");
        String sha = FunctionsTest.sha256("port: 9100\n".getBytes(StandardCharsets.UTF_8));
        var written = call("file.write", "/etc/exporter/conf.yaml", kw("source", "conf.yaml", "sha256", sha.toUpperCase(), "mode", 640));
        assertThat(written.retcode()).as(String.valueOf(written.value())).isZero();
        Path file = root.resolve("etc/exporter/conf.yaml");
        assertThat(file).hasContent("port: 9100");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r-----");
        assertThat(call("file.write", "/etc/exporter/conf.yaml", "port: 9101\n").retcode()).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r-----");

        lyingSource = true;
        assertError(call("file.write", "/etc/exporter/conf.yaml", kw("source", "conf.yaml", "sha256", "1".repeat(64))),
                "has sha256 " + sha);
        assertThat(file).hasContent("port: 9101");
        assertError(call("file.write", "/etc/x"), "either 'content' or 'source'");
        assertError(call("file.write", "/etc/x", "y", kw("source", "conf.yaml")), "either 'content' or 'source'");
        assertError(call("file.write", "/etc/x", kw("source", "conf.yaml")), "'sha256' is required");
        assertError(call("file.write", "/etc", "y"), "is a directory");
        try (var left = Files.list(file.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).as("no temporary files left").containsExactly("conf.yaml");
        }
    }

    @Test
    void aPackageIsVerifiedEvenWhenTheSourceDoesNot() throws Exception {
        byte[] pkg = tgz(tar -> tar.file("bin/x", 0755, "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8)));
        Files.write(served.resolve("x.tgz"), pkg);
        lyingSource = true;
        assertError(call("plugin.install_package", "x.tgz", "ab".repeat(32), "/opt/x"), "has sha256 " + FunctionsTest.sha256(pkg));
        assertThat(root.resolve("opt/x")).doesNotExist();
        var ok = call("plugin.install_package", kw("source", "x.tgz", "sha256", FunctionsTest.sha256(pkg).toUpperCase(),
                "target_dir", "opt/x"));
        assertThat(ok.retcode()).as(String.valueOf(ok.value())).isZero();
        assertThat(root.resolve("opt/x/bin/x")).isExecutable();
        try (var left = Files.list(fetched)) {
            assertThat(left.toList()).as("fetched files are deleted").isEmpty();
        }
    }

    @Test
    void hostilePackagesLeaveNothingBehind() throws Exception {
        byte[] oneByte = tgzRaw(tar -> tar.file("huge", 0644, new byte[1]));
        Map<String, byte[]> hostile = new LinkedHashMap<>();
        hostile.put("larger than", declareSize(oneByte, 3L << 30));
        hostile.put("'..'", tgz(tar -> tar.file("../x", 0644, new byte[1])));
        hostile.put("absolute path", tgz(tar -> tar.file("/etc/x", 0644, new byte[1])));
        hostile.put("outside the package", tgz(tar -> tar.special("etc", '2', "/etc")));
        hostile.put("climbs with '..' after a name", tgz(tar -> {
            tar.special("self", '2', ".");
            tar.special("escape", '2', "self/../outside");
        }));
        hostile.put("not a file of the package", tgz(tar -> tar.special("passwd", '1', "etc/passwd")));
        hostile.put("has an absolute path", tgz(tar -> tar.special("passwd", '1', "/etc/passwd")));
        hostile.put("through the link", tgz(tar -> {
            tar.special("etc", '2', ".");
            tar.file("etc/x", 0644, new byte[1]);
        }));
        hostile.put("device", tgz(tar -> tar.special("null", '3', "")));
        hostile.put("checksum mismatch", gzip("not a tar archive at all, but long enough".repeat(20).getBytes(StandardCharsets.UTF_8)));
        for (var bad : hostile.entrySet()) {
            Files.write(served.resolve("bad.tgz"), bad.getValue());
            var result = call("plugin.install_package", "bad.tgz", FunctionsTest.sha256(bad.getValue()), "/opt/bad");
            assertError(result, bad.getKey());
            assertThat(root.resolve("opt/bad")).as(bad.getKey()).doesNotExist();
            try (var left = Files.list(root.resolve("opt"))) {
                assertThat(left.toList()).as("no staging directory left").isEmpty();
            }
        }
    }

    @Test
    void commandsAndScripts() {
        var run = call("cmd.run", "echo out; echo err >&2; exit 3");
        assertThat(run).isEqualTo(new Functions.Result("out\nerr", 3));
        long began = System.nanoTime();
        assertThat(call("cmd.run", "sleep 5 & echo started").value()).isEqualTo("started");
        assertThat(Duration.ofNanos(System.nanoTime() - began)).as("a background process does not hold the job").isLessThan(Duration.ofSeconds(5));

        var script = call("cmd.script", "echo \"$#:$1:$2\"; pwd", "a  b");
        assertThat(script.retcode()).isZero();
        assertThat((String) script.value()).isEqualTo("2:a:b\n" + root);
        assertThat(call("cmd.script", "echo \"$#:$1\"", kw("args", List.of("one two", "three"))).value()).isEqualTo("2:one two");
        assertThat(call("cmd.script", "exit 7").retcode()).isEqualTo(7);
        assertError(call("cmd.script"), "'source' is required");
    }

    @Test
    void scriptsFromTheFileserverAreVerified() throws IOException {
        Files.writeString(served.resolve("hello.sh"), "echo hello \"$1\"\n");
        String sha = FunctionsTest.sha256(Files.readAllBytes(served.resolve("hello.sh")));
        assertThat(call("cmd.script", "hello.sh", "you", kw("sha256", sha)).value()).isEqualTo("hello you");
        lyingSource = true;
        assertError(call("cmd.script", "hello.sh", kw("sha256", "2".repeat(64))), "has sha256");
    }

    @Test
    void processesThroughTheJobFunctions() throws Exception {
        Files.createDirectories(root.resolve("usr/local/gse/external_plugins/sub_1_host_2/exporter"));
        var registered = call("proc.register", kw("name", "sub_1_host_2_exporter",
                "setup_path", "/usr/local/gse/external_plugins/sub_1_host_2/exporter",
                "pid_path", "/var/run/gse/sub_1_host_2/exporter.pid",
                "start_cmd", "nohup sh -c 'echo $$ > " + root.resolve("var/run/gse/sub_1_host_2/exporter.pid")
                        + "; exec sleep 300' >/dev/null 2>&1 &",
                "version_cmd", "echo 2.3", "delegate", true));
        assertThat(registered.retcode()).as(String.valueOf(registered.value())).isZero();

        var query = call("proc.operate", "sub_1_host_2_exporter", "query");
        assertThat(query.retcode()).isZero();
        assertThat(map(query)).containsEntry("status", "TERMINATED").containsEntry("op", "QUERY");
        var started = call("proc.operate", kw("name", "sub_1_host_2_exporter", "op", "START"));
        assertThat(started.retcode()).as(String.valueOf(started.value())).isZero();
        assertThat(map(started)).containsEntry("status", "RUNNING").containsEntry("version", "2.3")
                .containsEntry("delegate", true);
        var stopped = call("proc.operate", "sub_1_host_2_exporter", "STOP");
        assertThat(map(stopped)).containsEntry("status", "TERMINATED");
        assertThat(call("proc.unregister", "sub_1_host_2_exporter").value())
                .isEqualTo(Map.of("name", "sub_1_host_2_exporter", "unregistered", true));

        var unregistered = call("proc.operate", "sub_1_host_2_exporter", "QUERY");
        assertThat(unregistered.retcode()).isZero();
        assertThat(map(unregistered)).containsEntry("status", "UNREGISTER");
        assertError(call("proc.operate", "sub_1_host_2_exporter", "START"), "is not registered");
        assertError(call("proc.operate", "x", "EXPLODE"), "is not one of START, STOP");
        assertError(call("proc.operate", "x"), "'op' is required");
        assertError(call("proc.operate", "../../etc", "QUERY"), "process name");
        assertError(call("proc.register", kw("name", "x", "setup_path", "/opt", "pid_path", "/x.pid")), "'start_cmd' is required");
        assertError(call("proc.register", kw("name", "x", "setup_path", "/../..", "pid_path", "/x.pid", "start_cmd", "true")),
                "leaves the agent root");
        assertError(call("proc.register", kw("name", "x", "setup_path", "/opt", "pid_path", "/x.pid", "start_cmd", "true",
                "user", "root; rm -rf /")), "is not a user name");
    }

    @Test
    void malformedArgumentsAreErrorsNotExceptions() {
        assertThat(functions.call("test.ping", null).value()).isEqualTo(true);
        List<Object> withNull = new ArrayList<>();
        withNull.add(null);
        assertError(functions.call("file.write", withNull), "'path' is required");
        assertError(functions.call("saltutil.find_job", List.of()), "'jid' is required");
        assertError(call("file.write", "/etc/x", "y", kw("mode", "0999")), "not an octal mode");
        assertError(call("file.write", "/etc/x", "y", kw("mode", 1.5)), "not an octal mode");
        assertError(call("plugin.install_package", "x.tgz"), "'sha256' is required");
        assertError(call("plugin.install_package", "x.tgz", "zz", "/opt/x"), "not 64 hex digits");
        assertError(call("plugin.install_package", "missing.tgz", "a".repeat(64), "/opt/x"), "missing.tgz");
        assertError(call("file.write", "/etc/\0x", "y"), "file.write");
        assertError(call("file.write", Map.of("not", "kwargs"), "y"), "'path' must be a single value, not a map");
        assertThat(root.resolve("{not=kwargs}")).doesNotExist();
        assertThat(functions.call(null, List.of()).retcode()).isNotZero();
    }

    interface Entries {
        void write(TarWriter tar) throws IOException;
    }

    static byte[] tgzRaw(Entries entries) throws IOException {
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        try (TarWriter writer = new TarWriter(tar)) {
            entries.write(writer);
        }
        return tar.toByteArray();
    }

    static byte[] tgz(Entries entries) throws IOException {
        return gzip(tgzRaw(entries));
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    /** The first header claims {@code size} bytes of content that the archive does not have. */
    static byte[] declareSize(byte[] tar, long size) throws IOException {
        byte[] patched = tar.clone();
        byte[] field = String.format("%011o", size).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(field, 0, patched, 124, 11);
        Arrays.fill(patched, 148, 156, (byte) ' ');
        long sum = 0;
        for (int i = 0; i < 512; i++) {
            sum += patched[i] & 0xFF;
        }
        byte[] checksum = String.format("%06o", sum).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(checksum, 0, patched, 148, 6);
        patched[154] = 0;
        return gzip(patched);
    }
}
