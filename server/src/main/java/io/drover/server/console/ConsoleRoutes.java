package io.drover.server.console;

import io.drover.server.http.ApiException;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Route;
import io.drover.server.http.Scope;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/**
 * Serves the console at {@code /ui} with a strict Content-Security-Policy: files under {@code assets/} carry a
 * content hash in their names and are cached for a year; {@code index.html} is revalidated on every load.
 */
public final class ConsoleRoutes {
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'";
    private static final String IMMUTABLE = "public, max-age=31536000, immutable";

    private final ConsoleAssets assets;

    public ConsoleRoutes(ConsoleAssets assets) {
        this.assets = assets;
    }

    public void register(HttpApi api) {
        // Javalin ignores trailing slashes: this serves /ui/ too.
        api.add(new Route(HandlerType.GET, "/ui", null, Scope.NONE, "The web console", null, Route.Shape.TEXT, null, 200,
                ctx -> serve(ctx, "")));
        api.add(new Route(HandlerType.GET, "/ui/<file>", null, Scope.NONE,
                "The web console's files (content-hashed assets, cached a year) and pages", null, Route.Shape.TEXT, null,
                200, ctx -> serve(ctx, ctx.pathParam("file"))));
    }

    private void serve(Context ctx, String path) {
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cross-Origin-Opener-Policy", "same-origin");
        if (!assets.built()) {
            throw new ApiException(404, "console_not_built", "this build of Drover has no web console: npm was missing "
                    + "when it was built; install Node.js and npm and build again");
        }
        String name = assets.resolve(path);
        if (name == null) {
            throw new ApiException(404, "not_found", "the web console has no file " + io.drover.transport.logging.RateLimitedLog.shown(path, 100));
        }
        ConsoleAssets.Asset asset = assets.asset(name);
        ctx.header("Cache-Control", name.startsWith("assets/") ? IMMUTABLE : "no-cache");
        ctx.header("ETag", asset.etag());
        if (asset.etag().equals(ctx.header("If-None-Match"))) {
            ctx.status(304);
            return;
        }
        ctx.contentType(asset.contentType()).result(asset.bytes());
    }
}
