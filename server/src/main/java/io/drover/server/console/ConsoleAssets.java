package io.drover.server.console;

import io.drover.core.Hashing;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The web console's files: what the build put under {@code drover-ui/} on the class path (listed in its
 * {@code files.txt}), read once into memory with their media types and entity tags. A path names a listed file, or,
 * without a file extension, a page of the console, which is {@code index.html}; nothing else can be reached,
 * whatever the path says. {@link ConsoleRoutes} serves them.
 */
public final class ConsoleAssets {
    static final String ROOT = "drover-ui/";
    static final String INDEX = "index.html";

    /** One built file: its bytes, media type and entity tag. */
    record Asset(byte[] bytes, String contentType, String etag) {
    }

    private final Map<String, Asset> files;

    ConsoleAssets(Map<String, Asset> files) {
        this.files = Map.copyOf(files);
    }

    /** The console this build carries; empty when it was built without npm. */
    public static ConsoleAssets fromClassPath() {
        ClassLoader loader = ConsoleAssets.class.getClassLoader();
        Map<String, Asset> files = new HashMap<>();
        try (InputStream list = loader.getResourceAsStream(ROOT + "files.txt")) {
            if (list == null) {
                return new ConsoleAssets(Map.of());
            }
            for (String name : new String(list.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                name = name.strip();
                if (name.isEmpty()) {
                    continue;
                }
                try (InputStream in = loader.getResourceAsStream(ROOT + name)) {
                    if (in == null) {
                        throw new IllegalStateException("the console's files.txt lists " + name + ", which is not in the build");
                    }
                    byte[] bytes = in.readAllBytes();
                    files.put(name, new Asset(bytes, contentType(name), "\"" + Hashing.sha256(bytes).substring(0, 32) + "\""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the web console from the class path", e);
        }
        return new ConsoleAssets(files);
    }

    public boolean built() {
        return files.containsKey(INDEX);
    }

    /** The listed file of that name, or null. */
    Asset asset(String name) {
        return files.get(name);
    }

    /** The listed file a path names: itself, or {@code index.html} for a page (no extension); null for anything else. */
    String resolve(String path) {
        if (files.containsKey(path)) {
            return path;
        }
        int slash = path.lastIndexOf('/');
        boolean page = path.indexOf('.', slash + 1) < 0;
        return page ? INDEX : null;
    }

    static String contentType(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        int dot = lower.lastIndexOf('.');
        return switch (dot < 0 ? "" : lower.substring(dot + 1)) {
            case "html" -> "text/html; charset=utf-8";
            case "js", "mjs" -> "text/javascript; charset=utf-8";
            case "css" -> "text/css; charset=utf-8";
            case "json", "map" -> "application/json";
            case "svg" -> "image/svg+xml";
            case "png" -> "image/png";
            case "ico" -> "image/x-icon";
            case "woff2" -> "font/woff2";
            case "txt" -> "text/plain; charset=utf-8";
            default -> "application/octet-stream";
        };
    }
}
