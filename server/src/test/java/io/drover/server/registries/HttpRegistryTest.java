package io.drover.server.registries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP registry against a real HTTP server on loopback. */
class HttpRegistryTest {
    HttpServer http;
    final Map<String, byte[]> files = new ConcurrentHashMap<>();
    final Map<String, String> redirects = new ConcurrentHashMap<>();
    final Map<String, Integer> asked = new ConcurrentHashMap<>();

    @BeforeEach
    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        http.createContext("/", exchange -> {
            asked.merge(exchange.getRequestURI().getPath(), 1, Integer::sum);
            String location = redirects.get(exchange.getRequestURI().getPath());
            if (location != null) {
                exchange.getResponseHeaders().add("Location", location);
                exchange.sendResponseHeaders(302, -1);
                exchange.close();
                return;
            }
            byte[] body = files.get(exchange.getRequestURI().getPath());
            exchange.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
            if (body != null) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        http.start();
    }

    @AfterEach
    void stop() {
        http.stop(0);
    }

    String base() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    @Test
    void readsTheIndexResolvesRelativeUrlsAndChecksSha256() {
        byte[] pkg = "package bytes".getBytes(StandardCharsets.UTF_8);
        files.put("/repo/index.yaml", ("""
                apiVersion: v1
                entries:
                  exporter:
                  - version: v1.2.0
                    urls: [pkgs/exporter-1.2.0.tgz]
                    sha256: %s
                    dependencies: [{name: lib, version: ^1.0.0}]
                    system: {drover: ">=0.1.0"}
                  - version: 1.3.0
                    urls: ["%s/abs/exporter-1.3.0.tgz"]
                    digest: "%s"
                  - version: not-a-version
                    urls: [x.tgz]
                  lib:
                  - version: 1.0.0
                    urls: [lib-1.0.0.tgz]
                    annotations: {system.drover: ">=0.0.1"}
                """).formatted(io.drover.core.Hashing.sha256(pkg), base(), "0".repeat(64)).getBytes(StandardCharsets.UTF_8));
        files.put("/repo/pkgs/exporter-1.2.0.tgz", pkg);
        files.put("/abs/exporter-1.3.0.tgz", pkg);
        HttpRegistry registry = new HttpRegistry("web", base() + "/repo/", false);
        RegistryReader.Listing listing = registry.list();
        List<RegistryReader.Entry> entries = listing.entries();
        assertThat(listing.skipped()).containsExactly(
                new RegistryReader.Skipped("exporter@not-a-version", "version 'not-a-version' is not a version"));
        assertThat(entries).extracting(e -> e.candidate().name() + "@" + e.candidate().version().original())
                .containsExactly("exporter@v1.2.0", "exporter@1.3.0", "lib@1.0.0");
        assertThat(entries.getFirst().candidate().dependencies()).singleElement()
                .satisfies(d -> assertThat(d.version()).isEqualTo("^1.0.0"));
        assertThat(entries.getFirst().candidate().systemDrover()).isEqualTo(">=0.1.0");
        assertThat(entries.get(2).candidate().systemDrover()).isEqualTo(">=0.0.1");
        assertThat(registry.fetch(entries.getFirst())).isEqualTo(pkg);
        assertThatThrownBy(() -> registry.fetch(entries.get(1))).hasMessage("registry web: " + base()
                + "/abs/exporter-1.3.0.tgz has sha256 " + io.drover.core.Hashing.sha256(pkg) + " but the index says " + "0".repeat(64));
        assertThatThrownBy(() -> registry.fetch(entries.get(2)))
                .hasMessage("registry web: GET " + base() + "/repo/lib-1.0.0.tgz answered 404");
    }

    /** A download over the limit is refused whether its length is announced or not, and is not read past the limit. */
    @Test
    void aBodyOverTheLimitIsRefused() {
        files.put("/big/index.yaml", ("apiVersion: v1\nentries: {}\n# " + "x".repeat(4096)).getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new HttpRegistry("big", base() + "/big", false, 1024).list())
                .hasMessage("registry big: " + base() + "/big/index.yaml is larger than 1024 bytes");
        http.createContext("/chunked/", exchange -> {
            exchange.sendResponseHeaders(200, 0); // no length: chunked
            for (int i = 0; i < 64; i++) {
                exchange.getResponseBody().write(new byte[1024]);
            }
            exchange.close();
        });
        assertThatThrownBy(() -> new HttpRegistry("chunked", base() + "/chunked", false, 1024).list())
                .hasMessage("registry chunked: " + base() + "/chunked/index.yaml is larger than 1024 bytes");
        assertThat(new HttpRegistry("big", base() + "/big", false, 8192).list().entries()).isEmpty();
    }

    @Test
    void unreachableAndMalformedIndexesNameTheRegistryAndUrl() {
        assertThatThrownBy(() -> new HttpRegistry("gone", base() + "/nothing/index.yaml", false).list())
                .hasMessage("registry gone: GET " + base() + "/nothing/index.yaml answered 404");
        files.put("/bad/index.yaml", "entries: [1, 2".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new HttpRegistry("bad", base() + "/bad", false).list())
                .hasMessageStartingWith("registry bad: " + base() + "/bad/index.yaml is not a valid index.yaml");
        files.put("/empty/index.yaml", "apiVersion: v1\n".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new HttpRegistry("empty", base() + "/empty", false).list())
                .hasMessage("registry empty: " + base() + "/empty/index.yaml has no 'entries' mapping");
        files.put("/num/index.yaml", ("entries: {x: [{version: 1.0.0, urls: [x.tgz], sha256: 0000}, {version: 1.1.0},"
                + " {version: 1.2.0, urls: [x.tgz]}, 7], y: 3}").getBytes(StandardCharsets.UTF_8));
        RegistryReader.Listing partly = new HttpRegistry("num", base() + "/num", false).list();
        assertThat(partly.entries()).extracting(e -> e.candidate().version().original()).containsExactly("1.2.0");
        assertThat(partly.skipped()).containsExactly(
                new RegistryReader.Skipped("x@1.0.0", "its sha256 is a number (0); write it as quoted text"),
                new RegistryReader.Skipped("x@1.1.0", "has no urls"),
                new RegistryReader.Skipped("x[3]", "is not a mapping"),
                new RegistryReader.Skipped("y", "its entry is not a list of versions"));
        http.stop(0);
        assertThatThrownBy(() -> new HttpRegistry("down", base() + "/x", false).list())
                .hasMessageStartingWith("registry down: GET " + base() + "/x/index.yaml failed:");
    }

    @Test
    void anAddressInClearOnAnotherHostIsNotAskedUnlessTheRegistryAcceptsIt() {
        byte[] pkg = "package bytes".getBytes(StandardCharsets.UTF_8);
        files.put("/repo/index.yaml", """
                entries:
                  exporter:
                  - version: 1.0.0
                    urls: ["http://addons.example.invalid/exporter-1.0.0.tgz"]
                  - version: 1.1.0
                    urls: [moved/exporter-1.1.0.tgz]
                  - version: 1.2.0
                    urls: [here/exporter-1.2.0.tgz]
                  - version: 1.3.0
                    urls: [loop.tgz]
                """.getBytes(StandardCharsets.UTF_8));
        redirects.put("/repo/moved/exporter-1.1.0.tgz", "http://addons.example.invalid/exporter-1.1.0.tgz");
        redirects.put("/repo/here/exporter-1.2.0.tgz", "/files/exporter-1.2.0.tgz");
        redirects.put("/repo/loop.tgz", "/repo/loop.tgz");
        files.put("/files/exporter-1.2.0.tgz", pkg);
        HttpRegistry registry = new HttpRegistry("web", base() + "/repo/", false);
        List<RegistryReader.Entry> entries = registry.list().entries();

        assertThatThrownBy(() -> registry.fetch(entries.get(0))).isInstanceOf(RegistryException.class)
                .hasMessageContaining("http://addons.example.invalid/exporter-1.0.0.tgz travels in clear");
        assertThatThrownBy(() -> registry.fetch(entries.get(1))).isInstanceOf(RegistryException.class)
                .hasMessageContaining("redirects to http://addons.example.invalid/exporter-1.1.0.tgz travels in clear");
        // a redirect that stays on a protected (here: loopback) address is followed
        assertThat(registry.fetch(entries.get(2))).isEqualTo(pkg);
        assertThatThrownBy(() -> registry.fetch(entries.get(3))).isInstanceOf(RegistryException.class)
                .hasMessageContaining("after 5 redirects");
        assertThat(asked).as("the first request and five redirects").containsEntry("/repo/loop.tgz", 6);

        // accepted: the address is asked (and here does not resolve)
        HttpRegistry accepting = new HttpRegistry("web", base() + "/repo/", true);
        assertThatThrownBy(() -> accepting.fetch(accepting.list().entries().get(0))).isInstanceOf(RegistryException.class)
                .hasMessageContaining("failed").hasMessageNotContaining("in clear");
    }
}
