package io.drover.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console as the server serves it: the build's files (the Maven build puts them in the jar), headers and paths. */
class ConsoleAssetsTest {
    static TestServer server;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        server = TestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static HttpResponse<String> get(String rawPath, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url() + rawPath));
        headers.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Test
    void theBuildCarriesTheConsole() {
        assertThat(ConsoleAssets.fromClassPath().built()).as("the server build puts ui/'s build under drover-ui/").isTrue();
    }

    @Test
    void thePageHasAStrictPolicyNoInlineScriptAndIsRevalidated() throws Exception {
        HttpResponse<String> page = get("/ui/", Map.of());
        assertThat(get("/ui", Map.of()).body()).isEqualTo(page.body());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(ConsoleRoutes.CONTENT_SECURITY_POLICY);
        assertThat(ConsoleRoutes.CONTENT_SECURITY_POLICY).contains("script-src 'self';").doesNotContain("unsafe");
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(page.body()).containsPattern("<script[^>]+src=\"/ui/assets/");
        assertThat(Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>").matcher(page.body()).find())
                .as("an inline script in index.html").isFalse();
        assertThat(page.body()).doesNotContain(" style=\"").doesNotContain("<style");
    }

    @Test
    void hashedAssetsAreCachedForAYearAndRevalidateBy304() throws Exception {
        Matcher script = Pattern.compile("src=\"(/ui/assets/[^\"]+\\.js)\"").matcher(get("/ui/", Map.of()).body());
        assertThat(script.find()).isTrue();
        HttpResponse<String> asset = get(script.group(1), Map.of());
        assertThat(asset.statusCode()).isEqualTo(200);
        assertThat(asset.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/javascript");
        assertThat(asset.headers().firstValue("Cache-Control")).hasValue("public, max-age=31536000, immutable");
        String etag = asset.headers().firstValue("ETag").orElseThrow();
        assertThat(get(script.group(1), Map.of("If-None-Match", etag)).statusCode()).isEqualTo(304);
        assertThat(get(script.group(1), Map.of("If-None-Match", "\"other\"")).statusCode()).isEqualTo(200);
    }

    @Test
    void pagesGetTheIndexAndNothingElseCanBeReached() throws Exception {
        String index = get("/ui/", Map.of()).body();
        assertThat(get("/ui/subscriptions/1", Map.of()).body()).isEqualTo(index);
        for (String path : new String[] {"/ui/assets/nope.js", "/ui/files.txt", "/ui/..%2F..%2Fetc%2Fpasswd.txt",
                "/ui/%2e%2e/%2e%2e/server.pem", "/ui/a%00.js", "/ui/" + "x".repeat(5000) + ".js"}) {
            HttpResponse<String> answer = get(path, Map.of());
            assertThat(answer.statusCode()).as(path).isBetween(400, 499);
            assertThat(answer.body()).as(path).doesNotContain("root:").doesNotContain("<html");
        }
        HttpResponse<String> traversal = get("/ui/../../etc/passwd", Map.of());
        assertThat(traversal.body()).doesNotContain("root:");
    }

    @Test
    void theJavaScriptShippedStaysWithinItsBudgetOf500KbGzipped() throws Exception {
        ClassLoader loader = ConsoleAssetsTest.class.getClassLoader();
        String files = new String(loader.getResourceAsStream(ConsoleAssets.ROOT + "files.txt").readAllBytes(), StandardCharsets.UTF_8);
        long gzipped = 0;
        for (String name : files.split("\n")) {
            if (name.endsWith(".js")) {
                var out = new java.io.ByteArrayOutputStream();
                try (var gzip = new java.util.zip.GZIPOutputStream(out); var in = loader.getResourceAsStream(ConsoleAssets.ROOT + name)) {
                    in.transferTo(gzip);
                }
                gzipped += out.size();
            }
        }
        System.out.printf("console JavaScript: %d bytes gzipped%n", gzipped);
        assertThat(gzipped).isPositive().isLessThanOrEqualTo(500 * 1024);
    }

    @Test
    void aPathNamesOnlyListedFiles() {
        ConsoleAssets assets = new ConsoleAssets(Map.of("index.html", new ConsoleAssets.Asset(new byte[0], "text/html", "\"i\""),
                "assets/app-1.js", new ConsoleAssets.Asset(new byte[0], "text/javascript", "\"a\"")));
        assertThat(assets.resolve("assets/app-1.js")).isEqualTo("assets/app-1.js");
        assertThat(assets.resolve("")).isEqualTo("index.html");
        assertThat(assets.resolve("hosts/12")).isEqualTo("index.html");
        assertThat(assets.resolve("assets/app-2.js")).isNull();
        assertThat(assets.resolve("../secret.key")).isNull();
        assertThat(assets.resolve("files.txt")).isNull();
        assertThat(ConsoleAssets.contentType("assets/a.CSS")).isEqualTo("text/css; charset=utf-8");
        assertThat(ConsoleAssets.contentType("noextension")).isEqualTo("application/octet-stream");
    }
}
