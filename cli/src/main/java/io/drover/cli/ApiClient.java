package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Consumer;

/** The REST API over java.net.http: JSON in, JSON out, problem documents turned into readable errors. */
public final class ApiClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final String baseUrl;
    private final String token;
    /** The file of the CAs trusted for an https:// server, or null for the system's CAs. */
    private final java.nio.file.Path caFile;
    private final HttpClient http;

    public ApiClient(String baseUrl, String token) {
        this(baseUrl, token, null);
    }

    /** @param caFile PEM file of the CAs trusted instead of the system's for an https:// server; null: the system's */
    public ApiClient(String baseUrl, String token, java.nio.file.Path caFile) {
        this.baseUrl = baseUrl;
        this.token = token;
        this.caFile = caFile;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (caFile != null) {
            builder.sslContext(CaCertificates.trusting(caFile));
        }
        this.http = builder.build();
    }

    public JsonNode get(String path) {
        return send(request(path).GET());
    }

    public JsonNode post(String path, Object body) {
        return send(request(path).header("Content-Type", "application/json").POST(jsonBody(body)));
    }

    public JsonNode postRaw(String path, String contentType, byte[] body) {
        return send(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    /** Posts a file as the body, streamed from disk (an agent package of some hundred megabytes). */
    public JsonNode postFile(String path, String contentType, java.nio.file.Path file) {
        HttpRequest.BodyPublisher body;
        try {
            body = HttpRequest.BodyPublishers.ofFile(file);
        } catch (java.io.FileNotFoundException e) {
            throw new CliException(file + " cannot be read: " + e.getMessage());
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofHours(1))
                .header("Accept", "application/json").header("Content-Type", contentType).POST(body);
        authorize(builder);
        return send(builder);
    }

    /**
     * The pin (base64 of the SHA-256 of its public key, as curl's {@code --pinnedpubkey sha256//} takes it) of the
     * certificate this server presented, verified against this client's CAs and the server's name; null for a plain
     * {@code http://} server.
     */
    public String keyPin() {
        HttpResponse<Void> response = exchange(HttpRequest.newBuilder(uri("/api/v1/openapi.json")).timeout(TIMEOUT).GET(),
                HttpResponse.BodyHandlers.discarding());
        javax.net.ssl.SSLSession session = response.sslSession().orElse(null);
        if (session == null) {
            return null;
        }
        try {
            return io.drover.core.tls.PublicKeyPin.sha256(session.getPeerCertificates()[0]);
        } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
            throw new CliException("the server " + baseUrl + " presented no certificate: " + e.getMessage());
        }
    }

    public JsonNode put(String path, Object body) {
        return send(request(path).header("Content-Type", "application/json").PUT(jsonBody(body)));
    }

    public JsonNode delete(String path) {
        return send(request(path).DELETE());
    }

    public String getText(String path) {
        HttpResponse<String> response = exchange(request(path).GET(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 400) {
            throw failure(response.statusCode(), response.body());
        }
        return response.body();
    }

    /**
     * Posts a body and follows the server's progress lines (newline-delimited JSON, {@code {"progress": …}}), handing
     * each to {@code onProgress}; returns the {@code result} of the last line, or fails with its {@code error}.
     */
    public JsonNode postWithProgress(String path, String contentType, byte[] body, Consumer<JsonNode> onProgress) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofHours(1))
                .header("Accept", "application/x-ndjson, application/json").header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<InputStream> response = open(builder);
        try (BufferedReader reader = lines(response)) {
            if (!response.headers().firstValue("Content-Type").orElse("").startsWith("application/x-ndjson")) {
                return Json.json().readTree(reader);
            }
            String line;
            while ((line = reader.readLine()) != null) {
                JsonNode node = Json.json().readTree(line);
                if (node.has("progress")) {
                    onProgress.accept(node.path("progress"));
                } else if (node.has("error")) {
                    throw failure(node.path("error").path("status").asInt(500), node.path("error").toString());
                } else if (node.has("result")) {
                    return node.path("result");
                }
            }
            throw new CliException("the connection to " + baseUrl + " ended before the server said how " + path + " ended");
        } catch (IOException e) {
            throw new CliException("the connection to " + baseUrl + " broke during " + path + ": " + e.getMessage());
        }
    }

    /** Follows a Server-Sent Events stream, handing each event's data to the consumer until the stream ends. */
    public void stream(String path, Consumer<JsonNode> onEvent) {
        stream(path, () -> { }, onEvent);
    }

    /**
     * As {@link #stream(String, Consumer)}; {@code onSubscribed} runs once the server says the stream is live (its
     * "subscribed" comment, sent after any replay), so that nothing happening from then on is missed.
     */
    public void stream(String path, Runnable onSubscribed, Consumer<JsonNode> onEvent) {
        HttpResponse<InputStream> response = open(HttpRequest.newBuilder(uri(path)).header("Accept", "text/event-stream").GET());
        try (BufferedReader reader = lines(response)) {
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith(": subscribed to ")) {
                    onSubscribed.run();
                } else if (line.startsWith("data:")) {
                    data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
                } else if (line.isEmpty() && !data.isEmpty()) {
                    onEvent.accept(Json.json().readTree(data.toString()));
                    data.setLength(0);
                }
            }
        } catch (IOException e) {
            throw new CliException("the event stream from " + baseUrl + " broke: " + e.getMessage());
        }
    }

    /** Sends an authorized request whose answer is read as it arrives. */
    private HttpResponse<InputStream> open(HttpRequest.Builder builder) {
        authorize(builder);
        return exchange(builder, HttpResponse.BodyHandlers.ofInputStream());
    }

    /** The answer's lines, or the failure it reports. */
    private BufferedReader lines(HttpResponse<InputStream> response) throws IOException {
        if (response.statusCode() >= 400) {
            try (InputStream in = response.body()) {
                throw failure(response.statusCode(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    /** Query parameters from key/value pairs; null values are left out. */
    public static Map<String, Object> params(Object... keyValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                map.put((String) keyValues[i], keyValues[i + 1]);
            }
        }
        return map;
    }

    public static String query(Map<String, ?> params) {
        StringJoiner joiner = new StringJoiner("&", "?", "");
        joiner.setEmptyValue("");
        params.forEach((k, v) -> {
            if (v != null) {
                joiner.add(k + "=" + URLEncoder.encode(String.valueOf(v), StandardCharsets.UTF_8));
            }
        });
        return joiner.toString();
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(TIMEOUT).header("Accept", "application/json");
        authorize(builder);
        return builder;
    }

    private void authorize(HttpRequest.Builder builder) {
        if (token != null) {
            if (token.isBlank() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
                throw new CliException("the API token (--token or $DROVER_TOKEN) contains spaces, line breaks or "
                        + "non-ASCII characters; pass the token itself, e.g. --token \"$(cat admin.token)\"");
            }
            builder.header("Authorization", "Bearer " + token);
        }
    }

    private URI uri(String path) {
        try {
            return URI.create(baseUrl + path);
        } catch (IllegalArgumentException e) {
            throw new CliException("bad server URL '" + baseUrl + "': " + e.getMessage());
        }
    }

    private static HttpRequest.BodyPublisher jsonBody(Object body) {
        try {
            return HttpRequest.BodyPublishers.ofString(Json.json().writeValueAsString(body));
        } catch (IOException e) {
            throw new CliException("cannot encode the request: " + e.getMessage());
        }
    }

    private JsonNode send(HttpRequest.Builder builder) {
        HttpResponse<String> response = exchange(builder, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 400) {
            throw failure(response.statusCode(), response.body());
        }
        if (response.body() == null || response.body().isEmpty()) {
            return Json.json().nullNode();
        }
        try {
            return Json.json().readTree(response.body());
        } catch (IOException e) {
            throw new CliException("the server answered with something that is not JSON: " + e.getMessage());
        }
    }

    private <T> HttpResponse<T> exchange(HttpRequest.Builder builder, HttpResponse.BodyHandler<T> handler) {
        try {
            return http.send(builder.build(), handler);
        } catch (ConnectException e) {
            throw new CliException("cannot reach the Drover server at " + baseUrl
                    + " (is it running? set --server or DROVER_SERVER)");
        } catch (javax.net.ssl.SSLHandshakeException e) {
            throw new CliException("cannot verify the certificate of " + baseUrl + ": " + rootMessage(e) + (caFile == null
                    ? "; if a CA of your own signed it, pass --cacert FILE or set DROVER_CACERT to that CA's certificate"
                    : "; is " + caFile + " " + CaCertificates.WHERE + " the CA that signed it?"));
        } catch (IOException e) {
            throw new CliException("request to " + baseUrl + " failed: " + e.getMessage() + (baseUrl.startsWith("http://")
                    ? " (if the server serves HTTPS, use an https:// URL)" : ""));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted");
        }
    }

    /** The innermost cause's message: the reason a handshake failed, without the layers of exceptions around it. */
    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(root.getMessage());
        return message.contains("unable to find valid certification path")
                ? "it is not signed by a CA this client trusts" : message;
    }

    private CliException failure(int status, String body) {
        try {
            JsonNode problem = Json.json().readTree(body);
            StringBuilder message = new StringBuilder();
            message.append(problem.path("detail").asText("HTTP " + status));
            message.append(" [").append(status).append(' ').append(problem.path("code").asText("error")).append(']');
            for (JsonNode error : problem.path("errors")) {
                message.append(System.lineSeparator()).append("  ").append(error.path("field").asText())
                        .append(": ").append(error.path("message").asText());
            }
            if (status == 401 && token == null) {
                message.append(System.lineSeparator()).append("  (no token: pass --token or set DROVER_TOKEN)");
            }
            return new CliException(message.toString());
        } catch (IOException e) {
            return new CliException("HTTP " + status + ": " + body);
        }
    }
}
