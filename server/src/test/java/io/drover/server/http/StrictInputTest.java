package io.drover.server.http;

import static io.drover.server.http.HttpApiTest.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Input that must be refused at the door, each case first reproduced against the defect it describes: the answer
 * is a 4xx problem document naming the problem, and nothing is stored.
 */
class StrictInputTest {
    static TestServer server;
    static String admin;

    @BeforeAll
    static void start() {
        server = TestServer.start();
        admin = server.adminToken();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    long businesses() {
        return server.get("/api/v1/businesses", admin).body().size();
    }

    Response createBusiness(String json) {
        return server.postRaw("/api/v1/businesses", admin, "application/json", json);
    }

    @Test
    void aFloatIsNotCoercedToAnInteger() {
        long before = businesses();
        Response r = createBusiness("{\"bk_biz_id\": 1.5, \"bk_biz_name\": \"half\"}");
        assertProblem(r, 422, "validation_failed");
        assertThat(r.body().path("errors").get(0).path("field").asText()).isEqualTo("bk_biz_id");
        assertThat(businesses()).isEqualTo(before);
    }

    @Test
    void contentAfterTheDocumentIsRefused() {
        long before = businesses();
        assertProblem(createBusiness("{\"bk_biz_id\": 31, \"bk_biz_name\": \"x\"} xyz"), 400, "malformed_body");
        assertProblem(createBusiness("{\"bk_biz_id\": 32, \"bk_biz_name\": \"x\"} {}"), 400, "malformed_body");
        assertThat(businesses()).isEqualTo(before);
    }

    @Test
    void controlCharactersAndUnpairedSurrogatesAreRefusedNamingTheField() {
        long before = businesses();
        Response nul = createBusiness("{\"bk_biz_id\": 33, \"bk_biz_name\": \"a\\u0000b\"}");
        assertProblem(nul, 422, "validation_failed");
        assertThat(nul.body().path("errors").get(0).path("field").asText()).isEqualTo("bk_biz_name");
        assertThat(nul.body().path("errors").get(0).path("message").asText()).contains("U+0000");
        assertProblem(createBusiness("{\"bk_biz_id\": 34, \"bk_biz_name\": \"bell\\u0007\"}"), 422, "validation_failed");
        assertProblem(createBusiness("{\"bk_biz_id\": 35, \"bk_biz_name\": \"half \\ud800 pair\"}"), 422, "validation_failed");
        Response key = createBusiness("{\"bk_biz_id\": 36, \"bk_biz_name\": \"x\", \"attributes\": {\"k\\u0000\": 1}}");
        assertProblem(key, 422, "validation_failed");
        assertThat(key.body().path("errors").get(0).path("message").asText()).startsWith("a field name");
        assertThat(businesses()).isEqualTo(before);

        Response fine = createBusiness("{\"bk_biz_id\": 37, \"bk_biz_name\": \"tab\\tand \\u00e9 and \\ud83d\\ude80\"}");
        assertThat(fine.status()).as(fine.text()).isEqualTo(201);
    }

    @Test
    void deeplyNestedBodiesAreRefusedWhileParsing() {
        String deep = "{\"bk_biz_id\": 38, \"bk_biz_name\": \"x\", \"attributes\": {\"a\": " + "[".repeat(100_000)
                + "]".repeat(100_000) + "}}";
        assertProblem(createBusiness(deep), 400, "malformed_body");
        assertThat(createBusiness(deep).body().path("detail").asText()).contains("nesting depth");
    }

    @Test
    void anEventStreamNeedsTheEventStreamAcceptHeader() throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        var request = java.net.http.HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/events"))
                .header("Authorization", "Bearer " + admin).header("Accept", "application/json").build();
        var r = http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(406);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(r.body()).contains("Accept: text/event-stream");
    }

    /** Sends raw bytes; the status line's code, the Content-Type and the body. */
    record Raw(int status, String contentType, String body, String head) {
    }

    Raw raw(String request) throws Exception {
        URI url = URI.create(server.url());
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(response.substring(9, 12));
            String contentType = response.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-type:"))
                    .findFirst().orElse("").substring("content-type:".length()).strip();
            int end = response.indexOf("\r\n\r\n");
            return new Raw(status, contentType, response.substring(end + 4), response.substring(0, end));
        }
    }

    @Test
    void errorsJettyAnswersItselfAreProblemDocuments() throws Exception {
        String auth = "Authorization: Bearer " + admin + "\r\n";
        Raw nul = raw("GET /api/v1/hosts/%00 HTTP/1.1\r\nHost: x\r\n" + auth + "Connection: close\r\n\r\n");
        assertThat(nul.status()).isBetween(400, 404);
        assertThat(nul.contentType()).startsWith("application/problem+json");

        // Jetty closes the connection after a request it could not parse: the answer must say so, or a client that
        // keeps connections (the JDK's) sends its next request into the closed one and gets no answer at all
        Raw kept = raw("DELETE /api/v1/agent-installs/host-keys/host%00.example/22 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n");
        assertThat(kept.status()).isEqualTo(400);
        assertThat(kept.head().toLowerCase(java.util.Locale.ROOT)).contains("\r\nconnection: close");

        Raw longUri = raw("GET /api/v1/hosts/" + "9".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n" + auth + "Connection: close\r\n\r\n");
        assertThat(longUri.status()).isEqualTo(414);
        assertThat(longUri.contentType()).startsWith("application/problem+json");
        assertThat(longUri.body()).contains("\"code\":\"uri_too_long\"");

        Raw bigHeader = raw("GET /api/v1/hosts HTTP/1.1\r\nHost: x\r\n" + auth + "X-Big: " + "x".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n");
        assertThat(bigHeader.status()).isEqualTo(431);
        assertThat(bigHeader.contentType()).startsWith("application/problem+json");

        Raw garbage = raw("GARBAGE\r\n\r\n");
        assertThat(garbage.status()).isEqualTo(400);
        assertThat(garbage.contentType()).startsWith("application/problem+json");
        assertThat(server.get("/healthz", null).status()).isEqualTo(200);
    }
}
