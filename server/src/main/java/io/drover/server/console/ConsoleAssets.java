package io.drover.server.console;

import io.drover.core.Hashing;
import io.drover.server.http.ApiException;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Route;
import io.drover.server.http.Scope;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The web console: the files the build put under {@code drover-ui/} on the class path (listed in its
 * {@code files.txt}), read once into memory and served at {@code /ui} with a strict Content-Security-Policy. Files
 * under {@code assets/} carry a content hash in their names and are cached for a year; {@code index.html} is
 * revalidated on every load. Any other path without a file extension is a page of the console and gets
 * {@code index.html}. Nothing outside the listed files can be reached, whatever the path says.
 */
public final class ConsoleAssets {
    static final String ROOT = "drover-ui/";
    static final String INDEX = "index.html";
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'";
    private static final String IMMUTABLE = "public, max-age=31536000, immutable";

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

    public void register(HttpApi api) {
        // Javalin ignores trailing slashes: this serves /ui/ too.
        api.add(new Route(HandlerType.GET, "/ui", null, Scope.NONE, "The web console", null, Route.Shape.TEXT, null, 200,
                ctx -> serve(ctx, "")));
        api.add(new Route(HandlerType.GET, "/ui/<file>", null, Scope.NONE,
                "The web console's files (content-hashed assets, cached a year) and pages", null, Route.Shape.TEXT, null,
                200, ctx -> serve(ctx, ctx.pathParam("file"))));
    }

    void serve(Context ctx, String path) {
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cross-Origin-Opener-Policy", "same-origin");
        if (!built()) {
            throw new ApiException(404, "console_not_built", "this build of Drover has no web console: npm was missing "
                    + "when it was built; install Node.js and npm and build again");
        }
        String name = resolve(path);
        if (name == null) {
            throw new ApiException(404, "not_found", "the web console has no file " + printable(path));
        }
        Asset asset = files.get(name);
        ctx.header("Cache-Control", name.startsWith("assets/") ? IMMUTABLE : "no-cache");
        ctx.header("ETag", asset.etag());
        if (asset.etag().equals(ctx.header("If-None-Match"))) {
            ctx.status(304);
            return;
        }
        ctx.contentType(asset.contentType()).result(asset.bytes());
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

    private static String printable(String path) {
        String shown = path.length() > 100 ? path.substring(0, 100) + "…" : path;
        return "'" + shown.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append) + "'";
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
