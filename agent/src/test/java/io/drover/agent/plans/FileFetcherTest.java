package io.drover.agent.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.drover.agent.functions.FileSource;
import io.drover.core.Hashing;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.core.plans.PlanFile;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Downloadable files: from Drover's fileserver (salt://) and over HTTP, cached by sha256 across plans. */
class FileFetcherTest {
    static final String CONTENT = "echo from the fileserver\n";
    static final String SHA = Hashing.sha256(CONTENT);

    @TempDir
    Path dir;
    final List<String> served = new CopyOnWriteArrayList<>();
    final FileSource fileserver = (path, expected) -> {
        served.add(path);
        if (!path.equals("scripts/hello.sh")) {
            throw new IOException("no file " + path + " on the server");
        }
        Path copy = Files.createTempFile(dir, "served-", ".tmp");
        Files.writeString(copy, CONTENT);
        return copy;
    };
    final List<String> requested = new CopyOnWriteArrayList<>();
    HttpServer http;
    FileFetcher fetcher;

    @BeforeEach
    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", exchange -> {
            requested.add(exchange.getRequestURI().getPath());
            byte[] body = CONTENT.getBytes(StandardCharsets.UTF_8);
            int status = exchange.getRequestURI().getPath().equals("/hello.sh") ? 200 : 404;
            exchange.sendResponseHeaders(status, status == 200 ? body.length : -1);
            if (status == 200) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        http.start();
        fetcher = new FileFetcher(dir.resolve("cache"), fileserver);
    }

    @AfterEach
    void stop() {
        http.stop(0);
    }

    static PlanFile downloadable(String url, String sha256) {
        return new PlanFile("f", "hello.sh", PlanFile.Kind.DOWNLOADABLE, null, url, sha256);
    }

    @Test
    void saltUrlsComeFromTheFileserverAndTheCacheServesLaterPlans() throws Exception {
        Path first = fetcher.fetch(downloadable("salt://scripts/hello.sh", SHA), Duration.ofSeconds(5));
        assertThat(Files.readString(first)).isEqualTo(CONTENT);
        assertThat(first.getFileName().toString()).isEqualTo(SHA);
        Path again = new FileFetcher(dir.resolve("cache"), fileserver).fetch(downloadable("salt://scripts/hello.sh", SHA),
                Duration.ofSeconds(5));
        assertThat(again).isEqualTo(first);
        assertThat(served).as("the second plan's copy comes from the cache").containsExactly("scripts/hello.sh");
        // without a sha256 in the plan the file is fetched every time (nothing says which cached copy it is)
        fetcher.fetch(downloadable("SALT://scripts/hello.sh", null), Duration.ofSeconds(5));
        assertThat(served).hasSize(2);
    }

    @Test
    void httpDownloadsAreCachedBySha256Too() throws Exception {
        String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/hello.sh";
        Path first = fetcher.fetch(downloadable(url, SHA), Duration.ofSeconds(5));
        assertThat(Files.readString(first)).isEqualTo(CONTENT);
        fetcher.fetch(downloadable(url, SHA), Duration.ofSeconds(5));
        assertThat(requested).containsExactly("/hello.sh");
        assertThat(Files.list(dir.resolve("cache")).map(p -> p.getFileName().toString()).toList())
                .as("no partial download left behind").containsExactly(SHA);
    }

    @Test
    void aWrongSha256AMissingFileOrAnHttpErrorIsError8() {
        String base = "http://127.0.0.1:" + http.getAddress().getPort();
        for (PlanFile file : List.of(downloadable("salt://scripts/hello.sh", "0".repeat(64)), downloadable("salt://scripts/none.sh", null),
                downloadable(base + "/missing", null), downloadable(base + "/hello.sh", "1".repeat(64)))) {
            assertThatThrownBy(() -> fetcher.fetch(file, Duration.ofSeconds(5))).as(file.url()).isInstanceOf(PlanException.class)
                    .satisfies(e -> assertThat(((PlanException) e).code()).isEqualTo(PlanErrorCode.FETCH_ERROR))
                    .hasMessageStartingWith("Cannot fetch file f from " + file.url());
        }
        assertThat(dir.resolve("cache").toFile().list()).as("nothing wrong is kept").isEmpty();
    }
}
