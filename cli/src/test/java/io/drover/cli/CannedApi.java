package io.drover.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A stand-in for the Drover API on loopback: each {@code METHOD path} answers a canned status and body, and every
 * request is recorded (method, path with query, body) so that a test can check what the CLI sent.
 */
final class CannedApi implements AutoCloseable {
    record Answer(int status, String contentType, String body) {
    }

    record Request(String method, String uri, String body) {
    }

    private final HttpServer server;
    private final Map<String, Answer> answers = new LinkedHashMap<>();
    private final List<Request> requests = new ArrayList<>();

    CannedApi() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers {@code METHOD path} (the path without its query) with this JSON. */
    CannedApi json(String method, String path, String body) {
        return answer(method, path, 200, "application/json", body);
    }

    CannedApi answer(String method, String path, int status, String contentType, String body) {
        answers.put(method + " " + path, new Answer(status, contentType, body));
        return this;
    }

    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        synchronized (this) {
            requests.add(new Request(exchange.getRequestMethod(), exchange.getRequestURI().toString(), body));
        }
        Answer answer = answers.getOrDefault(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath(),
                new Answer(404, "application/problem+json",
                        "{\"status\": 404, \"code\": \"not_found\", \"detail\": \"no canned answer\"}"));
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", answer.contentType());
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
