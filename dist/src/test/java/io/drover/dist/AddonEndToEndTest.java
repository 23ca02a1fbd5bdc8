package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.drover.server.testing.TestDatabases;
import io.drover.server.testing.TestServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Addons end to end through the CLI, on PostgreSQL: an HTTP registry served by a test HTTP server, a Git registry in
 * a temporary repository, and the example addons of {@code examples/registry} spread over both.
 */
class AddonEndToEndTest {
    static final Path EXAMPLES = Path.of("..", "examples", "registry");
    static final String TOKEN = "s3cret-token-42";

    TestServer server;
    HttpServer http;
    @TempDir
    Path dir;

    @BeforeEach
    void start() throws IOException {
        server = TestServer.start(TestDatabases.postgres());
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    }

    @AfterEach
    void stop() {
        http.stop(0);
        server.close();
    }

    record Run(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    Run drover(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] full = Stream.concat(Stream.of(args), Stream.of("--server", server.url(), "--token", server.adminToken()))
                .toArray(String[]::new);
        if (args[0].equals("plugin") && args[1].equals("package")) {
            full = args;
        }
        int exit = io.drover.cli.DroverCommand.commandLine().setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true)).execute(full);
        return new Run(exit, out.toString(), err.toString());
    }

    Run ok(String... args) {
        Run run = drover(args);
        assertThat(run.exit()).as("drover %s%n%s", String.join(" ", args), run.all()).isZero();
        return run;
    }

    Run fails(String... args) {
        Run run = drover(args);
        assertThat(run.exit()).as("drover %s should fail%n%s", String.join(" ", args), run.out()).isNotZero();
        return run;
    }

    /** Serves libcompat and exporter-runtime from an index.yaml with relative urls, packaged by `drover plugin package`. */
    private String httpRegistry() throws Exception {
        Path charts = Files.createDirectories(dir.resolve("charts"));
        StringBuilder index = new StringBuilder("apiVersion: v1\nentries:\n");
        for (String addon : List.of("libcompat", "exporter-runtime")) {
            ok("plugin", "package", EXAMPLES.resolve(addon).toString(), "--dest", charts.toString());
        }
        try (Stream<Path> files = Files.list(charts)) {
            for (Path tgz : files.sorted().toList()) {
                String file = tgz.getFileName().toString();
                String name = file.substring(0, file.lastIndexOf('-'));
                String version = file.substring(file.lastIndexOf('-') + 1, file.length() - 4);
                String deps = name.equals("exporter-runtime") ? "    dependencies: [{name: libcompat, version: ^1.0.0}]\n" : "";
                index.append("  ").append(name).append(":\n  - version: ").append(version).append("\n    urls: [pkgs/")
                        .append(file).append("]\n    sha256: ").append(sha256(Files.readAllBytes(tgz))).append('\n').append(deps);
            }
        }
        byte[] indexBytes = index.toString().getBytes(StandardCharsets.UTF_8);
        http.createContext("/charts/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            Path file = path.endsWith("/index.yaml") ? null : charts.resolve(path.substring(path.lastIndexOf('/') + 1));
            byte[] body = file == null ? indexBytes : Files.exists(file) ? Files.readAllBytes(file) : null;
            exchange.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
            if (body != null) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        http.start();
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/charts/";
    }

    /** A Git repository with demo-exporter and bkmonitorbeat under addons/, on branch main. */
    private String gitRegistry() throws Exception {
        Path repo = dir.resolve("repo");
        for (String addon : List.of("demo-exporter", "bkmonitorbeat")) {
            copyTree(EXAMPLES.resolve(addon), repo.resolve("addons").resolve(addon));
        }
        try (Git git = Git.init().setInitialBranch("main").setDirectory(repo.toFile()).call()) {
            git.add().addFilepattern(".").call();
            git.commit().setMessage("addons").setAuthor("t", "t@example.com").setCommitter("t", "t@example.com").call();
        }
        return repo.toUri().toString();
    }

    @Test
    void enablingAnAddonInstallsItsThreeLevelChainFromTwoRegistriesAndSealsItsParams() throws Exception {
        ok("registry", "add", "web", "--type", "http", "--url", httpRegistry());
        ok("registry", "add", "git", "--type", "git", "--url", gitRegistry(), "--path", "addons", "--ref", "main");
        assertThat(ok("registry", "list").out()).containsSubsequence("web", "http", "git", "git");

        Run list = ok("addon", "list");
        assertThat(list.out()).contains("demo-exporter").contains("exporter-runtime").contains("bkmonitorbeat")
                .doesNotContain("warning");

        Run plan = ok("addon", "enable", "demo-exporter", "--set", "api_token=" + TOKEN, "--dry-run");
        assertThat(plan.out()).containsSubsequence("libcompat", "1.2.0", "web", "exporter-runtime", "1.0.0", "web",
                "demo-exporter", "1.0.0", "git").contains("dry run: nothing changed");
        assertThat(ok("addon", "list").out()).doesNotContain("enabled");
        assertThat(ok("plugin", "list").out()).doesNotContain("libcompat");

        JsonNode offered = server.get("/api/v1/addons/demo-exporter/schema", server.adminToken()).body();
        assertThat(offered.path("version").asText()).isEqualTo("1.0.0");
        assertThat(offered.path("registry").asText()).isEqualTo("git");
        assertThat(offered.path("schema").path("required").toString()).isEqualTo("[\"api_token\"]");
        assertThat(offered.path("schema").path("properties").path("scrape_interval").path("maximum").asInt()).isEqualTo(3600);
        assertThat(ok("plugin", "list").out()).as("reading a schema stores nothing").doesNotContain("demo-exporter");
        assertThat(server.get("/api/v1/addons/demo-exporter/schema?version=9.9.9", server.adminToken()).status()).isEqualTo(404);
        assertThat(server.get("/api/v1/addons/nope/schema", server.adminToken()).status()).isEqualTo(404);
        assertThat(server.get("/api/v1/addons/demo-exporter/schema?version=%00", server.adminToken()).status()).isEqualTo(422);

        Run enabled = ok("addon", "enable", "demo-exporter", "--set", "api_token=" + TOKEN, "--set", "scrape_interval=30");
        assertThat(enabled.out()).containsSubsequence("1", "libcompat", "2", "exporter-runtime", "3", "demo-exporter")
                .contains("Scrape interval: 30s.");
        assertThat(ok("plugin", "list").out()).contains("libcompat").contains("exporter-runtime").contains("demo-exporter");
        assertThat(Files.exists(server.dataDir().resolve("files/packages/demo-exporter/demo-exporter-1.0.0.tgz"))).isTrue();

        List<String> stored = server.server().database().jdbi().withHandle(h ->
                h.createQuery("SELECT params FROM addon").mapTo(String.class).list());
        assertThat(stored).hasSize(3).allSatisfy(p -> assertThat(p).startsWith("v1:").doesNotContain(TOKEN)
                .doesNotContain("scrape_interval"));

        JsonNode afterEnable = server.get("/api/v1/addons/demo-exporter/schema", server.adminToken()).body();
        assertThat(afterEnable.path("registry").asText()).isEqualTo("git");
        assertThat(afterEnable.path("schema")).isEqualTo(offered.path("schema"));

        Run status = ok("addon", "status", "demo-exporter");
        assertThat(status.out()).contains("version:   1.0.0").contains("registry:  git")
                .contains("✔ exporter-runtime >=1.0.0 (installed 1.0.0)").contains("api_token: ******")
                .contains("scrape_interval: 30").doesNotContain(TOKEN);

        Run upgraded = ok("addon", "upgrade", "demo-exporter", "--set", "scrape_interval=45");
        assertThat(upgraded.out()).contains("reconfigure").contains("Scrape interval: 45s.");
        assertThat(ok("addon", "status", "demo-exporter").out()).contains("scrape_interval: 45").contains("api_token: ******");

        assertThat(fails("addon", "disable", "exporter-runtime").err())
                .contains("addon exporter-runtime is required by [demo-exporter]");
        assertThat(fails("plugin", "delete", "demo-exporter@1.0.0").err())
                .contains("is the enabled version of addon demo-exporter");
        ok("addon", "disable", "demo-exporter");
        assertThat(ok("addon", "status", "demo-exporter").out()).contains("status:    disabled");
        long left = server.server().database().jdbi().withHandle(h ->
                h.createQuery("SELECT COUNT(*) FROM addon WHERE name = 'demo-exporter'").mapTo(Long.class).one());
        assertThat(left).isZero();
    }

    @Test
    void resolutionErrorsNameTheRegistryTheAddonAndTheVersions() throws Exception {
        ok("registry", "add", "git", "--type", "git", "--url", gitRegistry(), "--path", "addons");
        assertThat(fails("addon", "enable", "nope/demo-exporter").err())
                .contains("registry nope does not exist; registries are [store, git]");
        assertThat(fails("addon", "enable", "store/demo-exporter").err())
                .contains("addon demo-exporter not found in registry store");
        assertThat(fails("addon", "enable", "absent").err())
                .contains("addon absent not found in any registry (searched [store, git])");
        assertThat(fails("addon", "enable", "bkmonitorbeat@3.0.0").err())
                .contains("version 3.0.0 of addon bkmonitorbeat not found; available versions [2.1.0]");
        assertThat(fails("addon", "enable", "demo-exporter", "--set", "api_token=" + TOKEN).err())
                .contains("addon demo-exporter has unresolvable dependency exporter-runtime: no available addon with name exporter-runtime");
        assertThat(fails("addon", "enable", "bkmonitorbeat", "--set", "period=5").err())
                .contains("params.period: must be at least 10, got 5");
        assertThat(ok("addon", "list").out()).doesNotContain("enabled");
        assertThat(ok("plugin", "list").out()).doesNotContain("bkmonitorbeat");

        // An address another host answers in clear is refused unless the operator accepts it; this machine's is not.
        assertThat(fails("registry", "add", "far", "--type", "http", "--url", "http://addons.example.invalid/").err())
                .contains("url: travels in clear (http://)").contains("--insecure");
        assertThat(fails("registry", "add", "far", "--type", "git", "--url", "git://git.example.invalid/addons.git").err())
                .contains("url: travels in clear (git://)");
        assertThat(ok("registry", "list").out()).doesNotContain("far");
        assertThat(ok("registry", "add", "far", "--type", "http", "--url", "http://addons.example.invalid/", "--insecure").out())
                .contains("insecure");
        assertThat(ok("addon", "list").out()).contains("warning: registry far could not be read: registry far: GET http://addons.example.invalid/");
        ok("registry", "remove", "far");
        ok("registry", "add", "broken", "--type", "http", "--url", "http://127.0.0.1:" + TestServer.freePort() + "/x/");
        assertThat(ok("addon", "list").out()).contains("warning: registry broken could not be read: registry broken: GET http://127.0.0.1:");
        ok("addon", "enable", "bkmonitorbeat");
        assertThat(ok("addon", "status", "bkmonitorbeat").out()).contains("period: 60");
    }

    @Test
    void aLocalDirectoryIsPackagedStoredAndEnabledWithItsDependenciesFromRegistries() throws Exception {
        ok("registry", "add", "web", "--type", "http", "--url", httpRegistry());
        Path local = dir.resolve("my-exporter");
        copyTree(EXAMPLES.resolve("demo-exporter"), local);
        Files.writeString(local.resolve("metadata.yaml"), Files.readString(local.resolve("metadata.yaml"))
                .replace("name: demo-exporter", "name: my-exporter"));
        Run enabled = ok("addon", "enable", local.toString(), "--set", "api_token=" + TOKEN);
        assertThat(enabled.out()).contains("stored my-exporter 1.0.0").containsSubsequence("libcompat", "exporter-runtime", "my-exporter");
        assertThat(fails("addon", "enable", local.toString(), "--set", "api_token=" + TOKEN).err())
                .contains("addon my-exporter is already enabled at version 1.0.0; use addon upgrade");
    }

    /** Uploads of bad packages: each is refused with a message naming the problem, and nothing is stored. */
    @Test
    void brokenEntriesOfARegistryAreListedAsSkippedAndNamedAndTheRestStillWorks() throws Exception {
        Path local = dir.resolve("local");
        copyTree(EXAMPLES.resolve("libcompat"), local.resolve("libcompat"));
        Files.createDirectories(local.resolve("bad-yaml"));
        Files.writeString(local.resolve("bad-yaml/metadata.yaml"), "name: [unclosed\n");
        Files.createDirectories(local.resolve("no-version"));
        Files.writeString(local.resolve("no-version/metadata.yaml"), "name: no-version\n");
        Files.write(local.resolve("garbage-1.0.0.tgz"), "this is not gzip".getBytes(StandardCharsets.UTF_8));
        copyTree(EXAMPLES.resolve("libcompat"), local.resolve("bad-template"));
        Files.writeString(local.resolve("bad-template/metadata.yaml"), """
                name: bad-template
                version: 1.0.0
                category: scripts
                os: [linux]
                cpu_arch: [x86_64]
                config_templates:
                  - {name: a.conf, path: etc, source: templates/a.conf.j2}
                """);
        Files.createDirectories(local.resolve("bad-template/templates"));
        Files.writeString(local.resolve("bad-template/templates/a.conf.j2"), "one\nurl: {{ url }\n");
        ok("registry", "add", "loc", "--type", "local", "--url", local.toString());

        Run list = ok("addon", "list");
        assertThat(list.out()).contains("libcompat").contains("bad-template")
                .contains("warning: registry loc: bad-yaml is skipped: metadata.yaml: field 'name' has the wrong type (line 1)")
                .contains("warning: registry loc: no-version is skipped:")
                .contains("warning: registry loc: garbage-1.0.0.tgz is skipped: not a gzip-compressed tar archive");
        JsonNode catalog = server.get("/api/v1/addons", server.adminToken()).body();
        assertThat(catalog.path("skipped")).hasSize(3);
        assertThat(catalog.path("skipped").get(0).path("registry").asText()).isEqualTo("loc");

        assertThat(fails("addon", "enable", "loc/bad-yaml").err())
                .contains("registry loc skips its entry bad-yaml: metadata.yaml: field 'name' has the wrong type");
        assertThat(fails("addon", "enable", "bad-template").err())
                .contains("package bad-template 1.0.0 from registry loc is invalid")
                .contains("templates/a.conf.j2: line 2");
        copyTree(EXAMPLES.resolve("libcompat"), local.resolve("incomplete"));
        Files.writeString(local.resolve("incomplete/metadata.yaml"), "name: incomplete\nversion: 1.0.0\n");
        assertThat(fails("addon", "enable", "incomplete").err())
                .contains("package incomplete 1.0.0 from registry loc is invalid: incomplete: category is required")
                .doesNotContain(local.toString());
        ok("addon", "enable", "loc/libcompat");
        assertThat(ok("addon", "list").out()).contains("enabled");
    }

    @Test
    void badPackagesAreRefusedAndNothingIsStored() throws Exception {
        Path corrupt = dir.resolve("corrupt.tgz");
        Files.write(corrupt, "this is not gzip".getBytes());
        assertThat(fails("plugin", "upload", corrupt.toString()).err()).contains("not a gzip-compressed tar archive");

        String metadata = Files.readString(EXAMPLES.resolve("bkmonitorbeat/metadata.yaml"));
        assertThat(fails("plugin", "upload", rawPackage("dotdot.tgz", metadata, "../escape", '0', null).toString()).err())
                .contains("entry '../escape' leaves the package with '..'");
        assertThat(fails("plugin", "upload", rawPackage("absolute.tgz", metadata, "/etc/cron.d/x", '0', null).toString()).err())
                .contains("entry '/etc/cron.d/x' has an absolute path");
        assertThat(fails("plugin", "upload", rawPackage("link.tgz", metadata, "bin/evil", '2', "../../../etc/passwd").toString()).err())
                .contains("entry 'bin/evil' is a symbolic link (to '../../../etc/passwd'): packages may not contain links");
        assertThat(fails("plugin", "upload", rawPackage("inside.tgz", metadata, "bin/tool", '2', "../templates").toString()).err())
                .as("even a link inside the package: a chain of them can lead anywhere").contains("is a symbolic link");
        assertThat(fails("plugin", "upload", rawPackage("hard.tgz", metadata, "bin/hard", '1', "metadata.yaml").toString()).err())
                .contains("entry 'bin/hard' is a hard link");
        Path broken = dir.resolve("broken.tgz");
        try (var stream = Files.newOutputStream(broken); var gzip = new java.util.zip.GZIPOutputStream(stream);
             var tar = new io.drover.core.archive.TarWriter(gzip)) {
            tar.file("metadata.yaml", 0644, metadata.getBytes(StandardCharsets.UTF_8));
            tar.file("templates/bkmonitorbeat.conf.j2", 0644, "fine: {{ period }}\n".getBytes());
            tar.file("templates/bkmonitorbeat_script.conf.j2", 0644, "line one\n{% if period %}\nno end\n".getBytes());
            tar.file("templates/bkmonitorbeat_http.conf.j2", 0644, "url: {{ url }\n".getBytes());
        }
        String refused = fails("plugin", "upload", broken.toString()).err();
        assertThat(refused).contains("template templates/bkmonitorbeat_script.conf.j2: line")
                .contains("template templates/bkmonitorbeat_http.conf.j2: line").doesNotContain("bkmonitorbeat.conf.j2: ");
        assertThat(fails("plugin", "upload", rawPackage("fields.tgz", "name: x\n", "a", '0', null).toString()).err())
                .contains("version is required").contains("category is required").contains("os is required");
        assertThat(fails("plugin", "upload", rawPackage("version.tgz", metadata.replace("version: 2.1.0", "version: 2.1"),
                "a", '0', null).toString()).err()).contains("version '2.1' is not a semantic version MAJOR.MINOR.PATCH");
        assertThat(fails("plugin", "upload", rawPackage("constraint.tgz", metadata + "dependencies: [{name: libcompat, version: '>=>1'}]\n",
                "a", '0', null).toString()).err()).contains("dependencies.libcompat: invalid version constraint '>=>1'");

        Path noSource = dir.resolve("nosource");
        copyTree(EXAMPLES.resolve("bkmonitorbeat"), noSource);
        Files.delete(noSource.resolve("templates/bkmonitorbeat_http.conf.j2"));
        assertThat(fails("plugin", "package", noSource.toString()).err())
                .contains("config_templates[2].source 'templates/bkmonitorbeat_http.conf.j2' is not in the package");

        assertThat(ok("plugin", "list", "-o", "json").out().strip()).isEqualTo("[ ]");
        try (Stream<Path> files = Files.walk(server.dataDir().resolve("files"))) {
            assertThat(files.filter(f -> f.toString().endsWith(".tgz")).toList()).isEmpty();
        }

        Path good = dir.resolve("good");
        Files.createDirectories(good);
        ok("plugin", "package", EXAMPLES.resolve("bkmonitorbeat").toString(), "--dest", good.toString());
        Path tgz = good.resolve("bkmonitorbeat-2.1.0.tgz");
        ok("plugin", "upload", tgz.toString());
        assertThat(fails("plugin", "upload", tgz.toString()).err())
                .contains("package bkmonitorbeat 2.1.0 is already stored").contains("--force");
        ok("plugin", "upload", tgz.toString(), "--force");
        ok("plugin", "delete", "bkmonitorbeat@2.1.0");
        assertThat(ok("plugin", "list", "-o", "json").out().strip()).isEqualTo("[ ]");
    }

    /** A package with the given metadata plus one extra entry written as it is (type '0' file or '2' symlink). */
    private Path rawPackage(String file, String metadata, String entry, char type, String link) throws IOException {
        Path out = dir.resolve(file);
        try (var stream = Files.newOutputStream(out); var gzip = new java.util.zip.GZIPOutputStream(stream);
             var tar = new io.drover.core.archive.TarWriter(gzip)) {
            tar.file("metadata.yaml", 0644, metadata.getBytes(StandardCharsets.UTF_8));
            for (String template : List.of("bkmonitorbeat.conf.j2", "bkmonitorbeat_script.conf.j2", "bkmonitorbeat_http.conf.j2")) {
                tar.file("templates/" + template, 0644, "x".getBytes());
            }
            if (type == '0') {
                tar.file(entry, 0644, "x".getBytes());
            } else {
                tar.special(entry, type, link);
            }
        }
        return out;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
