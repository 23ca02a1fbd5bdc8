package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.model.Json;
import io.drover.model.api.Problem;
import io.drover.model.api.ProgressLine;
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
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Consumer;

/**
 * The REST API over java.net.http: the {@code model} records in and out, problem documents turned into readable errors.
 */
public final class ApiClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    /**
     * Reads the server's answers into the model records. Unlike the server's strict {@link Json#json()}, it ignores
     * fields it does not know: a newer server may add fields to an answer, and an older CLI must still read it.
     */
    static final ObjectMapper ANSWERS = Json.json().copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

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

    private JsonNode get(String path) {
        return send(request(path).GET());
    }

    /** GET, the answer read as this record. */
    public <T> T get(String path, Class<T> type) {
        return read(get(path), ANSWERS.constructType(type));
    }

    /** GET, the answer read as this type (a list or page of records). */
    public <T> T get(String path, TypeReference<T> type) {
        return read(get(path), ANSWERS.constructType(type));
    }

    /** POST of a model record, the answer read as this record. */
    public <T> T post(String path, Object body, Class<T> type) {
        return read(post(path, body), ANSWERS.constructType(type));
    }

    /** POST of a model record, the answer read as this type. */
    public <T> T post(String path, Object body, TypeReference<T> type) {
        return read(post(path, body), ANSWERS.constructType(type));
    }

    /** POST without a body (an action on the resource in the path), the answer read as this record. */
    public <T> T postNoBody(String path, Class<T> type) {
        return read(send(request(path).POST(HttpRequest.BodyPublishers.noBody())), ANSWERS.constructType(type));
    }

    /** PUT of a model record, the answer read as this record. */
    public <T> T put(String path, Object body, Class<T> type) {
        return read(put(path, body), ANSWERS.constructType(type));
    }

    /** DELETE, the answer read as this record (null when the server answers none). */
    public <T> T delete(String path, Class<T> type) {
        return read(send(request(path).DELETE()), ANSWERS.constructType(type));
    }

    /** An answer as a model record (null for an empty answer), or a clear error when it does not fit the record. */
    static <T> T read(JsonNode answer, JavaType type) {
        if (answer == null || answer.isNull() || answer.isMissingNode()) {
            return null;
        }
        try {
            return ANSWERS.treeToValue(answer, type);
        } catch (IOException | IllegalArgumentException e) {
            throw new CliException("the server's answer does not fit " + type.toCanonical().replaceAll("[a-z.]+\\.", "")
                    + " (is the server a compatible version?): " + e.getMessage());
        }
    }

    private JsonNode post(String path, Object body) {
        return send(request(path).header("Content-Type", "application/json").POST(jsonBody(body)));
    }

    /** POST of bytes of this content type (a package), the answer read as this record. */
    public <T> T postRaw(String path, String contentType, byte[] body, Class<T> type) {
        return read(send(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body))),
                ANSWERS.constructType(type));
    }

    /** Posts a file as the body, streamed from disk (an agent package of some hundred megabytes). */
    public <T> T postFile(String path, String contentType, java.nio.file.Path file, Class<T> type) {
        HttpRequest.BodyPublisher body;
        try {
            body = HttpRequest.BodyPublishers.ofFile(file);
        } catch (java.io.FileNotFoundException e) {
            throw new CliException(file + " cannot be read: " + e.getMessage());
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofHours(1))
                .header("Accept", "application/json").header("Content-Type", contentType).expectContinue(true).POST(body);
        authorize(builder);
        return read(send(builder), ANSWERS.constructType(type));
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

    private JsonNode put(String path, Object body) {
        return send(request(path).header("Content-Type", "application/json").PUT(jsonBody(body)));
    }

    /** DELETE; the answer, if any, is not read. */
    public void delete(String path) {
        send(request(path).DELETE());
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
     * each, read as {@code progressType}, to {@code onProgress}; returns the {@code result} of the last line read as
     * {@code resultType}, or fails with its {@code error} (a problem document).
     */
    public <P, R> R postWithProgress(String path, String contentType, byte[] body, Class<P> progressType, Class<R> resultType,
                                     Consumer<P> onProgress) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofHours(1))
                .header("Accept", "application/x-ndjson, application/json").header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<InputStream> response = open(builder);
        try (BufferedReader reader = lines(response)) {
            if (!response.headers().firstValue("Content-Type").orElse("").startsWith("application/x-ndjson")) {
                return read(Json.json().readTree(reader), ANSWERS.constructType(resultType));
            }
            JavaType lineType = ANSWERS.getTypeFactory().constructParametricType(ProgressLine.class, progressType, resultType);
            String line;
            while ((line = reader.readLine()) != null) {
                ProgressLine<P, R> node = read(Json.json().readTree(line), lineType);
                if (node == null) {
                    continue;
                }
                if (node.progress() != null) {
                    onProgress.accept(node.progress());
                } else if (node.error() != null) {
                    throw failure(node.error().status() == 0 ? 500 : node.error().status(),
                            Json.json().writeValueAsString(node.error()));
                } else if (node.result() != null) {
                    return node.result();
                }
            }
            throw new CliException("the connection to " + baseUrl + " ended before the server said how " + path + " ended");
        } catch (IOException e) {
            throw new CliException("the connection to " + baseUrl + " broke during " + path + ": " + e.getMessage());
        }
    }

    /**
     * Follows a Server-Sent Events stream, handing each event's data, read as {@code type}, to the consumer until the
     * stream ends; {@code onSubscribed} runs once the server says the stream is live (its "subscribed" comment, sent
     * after any replay), so that nothing happening from then on is missed.
     */
    public <T> void stream(String path, Class<T> type, Runnable onSubscribed, Consumer<T> onEvent) {
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
                    onEvent.accept(read(Json.json().readTree(data.toString()), ANSWERS.constructType(type)));
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
        Problem problem;
        try {
            problem = ANSWERS.readValue(body, Problem.class);
        } catch (IOException | RuntimeException e) {
            return new CliException("HTTP " + status + ": " + body);
        }
        StringBuilder message = new StringBuilder();
        message.append(problem.detail() == null ? "HTTP " + status : problem.detail());
        message.append(" [").append(status).append(' ').append(problem.code() == null ? "error" : problem.code()).append(']');
        for (Problem.FieldError error : problem.errors() == null ? List.<Problem.FieldError>of() : problem.errors()) {
            message.append(System.lineSeparator()).append("  ").append(error.field())
                    .append(": ").append(error.message());
        }
        if (status == 401 && token == null) {
            message.append(System.lineSeparator()).append("  (no token: pass --token or set DROVER_TOKEN)");
        }
        return new CliException(message.toString());
    }
}
