package io.drover.server.agentpackages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.drover.core.Hashing;
import io.drover.core.agents.AgentInstallCommand;
import io.drover.core.agents.AgentPackageName;
import io.drover.core.testing.AgentPackages;
import io.drover.core.testing.TestCa;
import io.drover.core.tls.PublicKeyPin;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-line install command, run by sh with the host's curl against a real server over HTTPS: the download is
 * pinned to the server's key, authorized by the enrollment token from its file, checked and unpacked, and the
 * package's {@code bin/drover-agent install} runs (here a script that writes down its arguments).
 */
class AgentInstallCommandCurlTest {
    @TempDir
    static Path dir;
    static TestCa ca;
    static TestCa.Leaf leaf;
    static TestServer server;
    static String arch;
    static Path argsFile;
    static String finger;

    @BeforeAll
    static void start() throws Exception {
        for (String tool : List.of("curl", "sha256sum", "tar", "mktemp", "uname")) {
            assumeTrue(onPath(tool), tool + " is not installed");
        }
        arch = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> null;
        };
        assumeTrue(arch != null, "no agent package is built for " + System.getProperty("os.arch"));
        ca = TestCa.create(dir, "operators-ca");
        leaf = ca.server("drover.example", TestCa.KeyKind.RSA_PKCS8, true);
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.TLS_CERT, leaf.cert().toString(),
                Setting.TLS_KEY, leaf.key().toString()), ca.sslContext());
        argsFile = dir.resolve("install-args");
        byte[] tgz = AgentPackages.of("1.2.0", arch, "#!/bin/sh\nprintf '%s\\n' \"$*\" > '" + argsFile + "'\n");
        HttpResponse<String> stored = HttpClient.newBuilder().sslContext(ca.sslContext()).build().send(HttpRequest.newBuilder(
                        URI.create(server.url() + "/api/v1/agent-packages")).header("Authorization", "Bearer " + server.adminToken())
                .POST(HttpRequest.BodyPublishers.ofByteArray(tgz)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
        server.postRaw("/api/v1/inventory/import", server.adminToken(), "application/yaml", "businesses: [{bk_biz_id: 2, bk_biz_name: two}]");
        finger = server.get("/api/v1/master", server.adminToken()).body().path("fingerprint").asText();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static boolean onPath(String tool) {
        return List.of(System.getenv("PATH").split(":")).stream().anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    /** A token file as the operator is told to make it: mode 0600 from its creation. */
    static Path tokenFile(String name, String token) throws IOException {
        Path file = Files.createFile(dir.resolve(name), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        return Files.writeString(file, token + "\n");
    }

    static String enrollmentToken() {
        return server.post("/api/v1/enrollment-tokens", server.adminToken(), Map.of("name", "hosts", "bk_biz_id", 2, "max_uses", 1))
                .body().path("token").asText();
    }

    static AgentInstallCommand command(TestServer to, String pin, Path tokenFile) {
        String sha256 = to.get("/api/v1/agent-packages", to.adminToken()).body().get(0).path("sha256").asText();
        return new AgentInstallCommand(to.url(), pin, List.of(new AgentInstallCommand.Offer(new AgentPackageName("1.2.0", arch), sha256)),
                "drover.example:4506", finger, tokenFile.toString());
    }

    record Run(int exit, String err, List<String> temporaries) {
    }

    /** Runs the line with sh, its temporary directory under a fresh TMPDIR. */
    static Run run(String line) throws Exception {
        Files.deleteIfExists(argsFile);
        Path tmp = Files.createTempDirectory(dir, "tmp");
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", line).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("TMPDIR", tmp.toString());
        Process process = builder.start();
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        try (var left = Files.list(tmp)) {
            return new Run(process.exitValue(), err, left.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void theCommandDownloadsOverThePinnedKeyChecksTheSha256AndRunsTheInstaller() throws Exception {
        String token = enrollmentToken();
        Path tokenFile = tokenFile("good.token", token);
        String line = command(server, PublicKeyPin.sha256(TestCa.certificate(leaf.cert())), tokenFile).line();
        assertThat(line).doesNotContain(token).doesNotContain(token.substring("drv_enroll_".length()));

        Run run = run(line);

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(Files.readString(argsFile).strip()).isEqualTo("install --master drover.example:4506 --master-finger " + finger
                + " --enroll-token-file " + tokenFile);
        assertThat(run.temporaries()).as("the downloaded package is removed").isEmpty();
        assertThat(server.get("/api/v1/enrollment-tokens", server.adminToken()).body().get(0).path("uses").asLong())
                .as("the single-use token is still unused, for the agent's sign-in").isZero();
    }

    @Test
    void anotherKeyThanThePinnedOneIsRefusedBeforeTheTokenIsSent() throws Exception {
        TestCa.Leaf impostor = ca.server("drover.example", TestCa.KeyKind.RSA_PKCS8, true);
        Path tokenFile = tokenFile("impostor.token", enrollmentToken());

        Run run = run(command(server, PublicKeyPin.sha256(TestCa.certificate(impostor.cert())), tokenFile).line());

        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).containsIgnoringCase("pinned public key");
        assertThat(argsFile).doesNotExist();
        assertThat(run.temporaries()).isEmpty();
    }

    @Test
    void aRevokedTokenOrAMissingTokenFileInstallsNothing() throws Exception {
        String token = enrollmentToken();
        Path tokenFile = tokenFile("revoked.token", token);
        long id = server.get("/api/v1/enrollment-tokens", server.adminToken()).body().findValues("id").stream()
                .mapToLong(n -> n.asLong()).max().orElseThrow();
        assertThat(server.delete("/api/v1/enrollment-tokens/" + id, server.adminToken()).status()).isEqualTo(204);
        String pin = PublicKeyPin.sha256(TestCa.certificate(leaf.cert()));

        Run revoked = run(command(server, pin, tokenFile).line());
        Run missing = run(command(server, pin, dir.resolve("absent.token")).line());

        assertThat(revoked.exit()).isNotZero();
        assertThat(revoked.err()).contains("401");
        assertThat(missing.exit()).isNotZero();
        assertThat(missing.err()).contains("drover: put the enrollment token in " + dir.resolve("absent.token") + " first");
        assertThat(argsFile).doesNotExist();
    }

    @Test
    void overPlainHttpTheSameCommandWorksWithoutAPin() throws Exception {
        try (TestServer plain = TestServer.start()) {
            byte[] tgz = AgentPackages.of("1.2.0", arch, "#!/bin/sh\nprintf '%s\\n' \"$*\" > '" + argsFile + "'\n");
            HttpResponse<String> stored = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(plain.url()
                            + "/api/v1/agent-packages")).header("Authorization", "Bearer " + plain.adminToken())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(tgz)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
            plain.postRaw("/api/v1/inventory/import", plain.adminToken(), "application/yaml", "businesses: [{bk_biz_id: 2, bk_biz_name: two}]");
            String token = plain.post("/api/v1/enrollment-tokens", plain.adminToken(), Map.of("name", "h", "bk_biz_id", 2)).body()
                    .path("token").asText();

            Run run = run(command(plain, null, tokenFile("plain.token", token)).line());

            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(Files.readString(argsFile)).startsWith("install --master drover.example:4506");
            assertThat(Hashing.sha256(tgz)).isEqualTo(plain.get("/api/v1/agent-packages", plain.adminToken()).body().get(0)
                    .path("sha256").asText());
        }
    }
}
