package io.drover.server.http;

import io.drover.model.Json;
import io.drover.model.api.Problem;
import io.drover.server.errors.DomainException;
import io.drover.model.auth.Role;
import io.drover.server.auth.AuditStore;
import io.drover.server.auth.AuthFailures;
import io.drover.server.auth.Principal;
import io.drover.server.auth.TokenStore;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.http.MethodNotAllowedResponse;
import io.javalin.http.sse.SseClient;
import io.javalin.http.sse.SseHandler;
import io.javalin.json.JavalinJackson;
import io.javalin.router.ParsedEndpoint;
import io.javalin.security.RouteRole;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: routes are declared here with their role and documentation, then served by Javalin with
 * authentication, authorization, audit, metrics and problem+json errors applied to all of them alike.
 */
public final class HttpApi {
    public static final String API = "/api/v1";
    private static final Logger log = LoggerFactory.getLogger(HttpApi.class);
    private static final String PRINCIPAL = "drover.principal";
    private static final String STARTED = "drover.started";
    private static final String AUDIT_STATUS = "drover.audit-status";
    private static final String AUDIT_DETAIL = "drover.audit-detail";
    private static final Set<HandlerType> MUTATIONS = Set.of(HandlerType.POST, HandlerType.PUT, HandlerType.PATCH,
            HandlerType.DELETE);

    private final List<Route> routes = new ArrayList<>();
    private final TokenStore tokens;
    private final AuditStore audit;
    private final AuthFailures authFailures;
    private final MeterRegistry metrics;
    private final ClientAddress clients;
    private Javalin app;

    /** @param clients how the address that failed authentications are counted against is found (trusted proxies) */
    public HttpApi(TokenStore tokens, AuditStore audit, AuthFailures authFailures, MeterRegistry metrics, ClientAddress clients) {
        this.clients = clients;
        this.tokens = tokens;
        this.audit = audit;
        this.authFailures = authFailures;
        this.metrics = metrics;
    }

    public List<Route> routes() {
        return List.copyOf(routes);
    }

    public void add(Route route) {
        if (app != null) {
            throw new IllegalStateException("routes must be added before the server starts");
        }
        routes.add(route);
    }

    /** GET returning one JSON value. */
    public void get(String path, Role role, Scope scope, String summary, Class<?> response, Route.Shape shape, Handler handler) {
        add(new Route(HandlerType.GET, path, role, scope, summary, null, shape, response, 200, handler));
    }

    /** GET that also takes {@code other} instead of a token (with any role). */
    public void get(String path, Role role, Scope scope, String summary, Class<?> response, Route.Shape shape, Handler handler,
                    OtherCredential other) {
        add(new Route(HandlerType.GET, path, role, scope, summary, null, shape, response, 200, handler, other));
    }

    public void post(String path, Role role, Scope scope, String summary, Class<?> body, Class<?> response, int status,
                     Handler handler) {
        add(new Route(HandlerType.POST, path, role, scope, summary, body, response == null ? Route.Shape.NONE
                : Route.Shape.ONE, response, status, handler));
    }

    public void put(String path, Role role, Scope scope, String summary, Class<?> body, Class<?> response, Handler handler) {
        add(new Route(HandlerType.PUT, path, role, scope, summary, body, Route.Shape.ONE, response, 200, handler));
    }

    public void delete(String path, Role role, Scope scope, String summary, Handler handler) {
        add(new Route(HandlerType.DELETE, path, role, scope, summary, null, Route.Shape.NONE, null, 204, handler));
    }

    public void sse(String path, Role role, Scope scope, String summary, Consumer<SseClient> client) {
        add(new Route(HandlerType.GET, path, role, scope, summary, null, Route.Shape.EVENT_STREAM, null, 200,
                new SseHandler(client)));
    }

    /** The caller of an authenticated route. */
    public static Principal principal(Context ctx) {
        Principal principal = ctx.attribute(PRINCIPAL);
        if (principal == null) {
            throw new IllegalStateException("route has no authenticated caller");
        }
        return principal;
    }

    /**
     * Serves the routes on {@code host:port}: over HTTPS only when {@code https} is given, else plain HTTP; at most
     * {@code maxConnections} connections at once (more wait in the listen queue).
     */
    public Javalin start(String host, int port, HttpsConnector https, int maxConnections) {
        app = Javalin.create(cfg -> {
            cfg.concurrency.useVirtualThreads = true;
            cfg.jetty.host = host;
            cfg.jetty.port = port;
            if (https != null) {
                // Javalin adds its plain HTTP connector only when none was added
                cfg.jetty.addConnector((server, http) -> https.connector(server, http, host, port));
            }
            // Errors Jetty answers itself (malformed request line, URI or headers too long, ambiguous paths)
            // are problem documents too.
            cfg.jetty.modifyServer(server -> {
                server.setErrorHandler(new ProblemErrorHandler());
                server.addBean(new org.eclipse.jetty.server.NetworkConnectionLimit(maxConnections, server));
            });
            cfg.jetty.modifyServletContextHandler(context -> context.setErrorHandler(new ProblemErrorHandler()));
            cfg.startup.showJavalinBanner = false;
            cfg.http.prefer405over404 = true;
            cfg.jsonMapper(new JavalinJackson(Json.json(), true));
            cfg.routes.before(ctx -> {
                ctx.attribute(STARTED, System.nanoTime());
                if (ctx.path().startsWith(API + "/")) {
                    ctx.header("Cache-Control", "no-store"); // answers hold tokens, inventory and returns
                }
            });
            cfg.routes.beforeMatched(this::refuseOversizedBody);
            cfg.routes.beforeMatched(this::authenticate);
            for (Route route : routes) {
                List<RouteRole> rules = new ArrayList<>();
                if (route.role() != null) {
                    rules.add(new RequiredRole(route.role(), route.scope()));
                }
                if (route.otherCredential() != null) {
                    rules.add(new AlsoTakes(route.otherCredential()));
                }
                Long bodyLimit = bodyLimits.get(route.method().name() + " " + route.path());
                if (bodyLimit != null) {
                    rules.add(new BodyLimit(bodyLimit));
                }
                RouteRole[] roles = rules.toArray(RouteRole[]::new);
                Handler handler = route.handler();
                int status = route.status();
                cfg.routes.addHttpHandler(route.method(), route.path(), ctx -> {
                    ctx.status(status);
                    handler.handle(ctx);
                }, roles);
            }
            // None of these may throw: see answering().
            cfg.routes.exception(ApiException.class, (e, ctx) -> answering(ctx, c -> problem(c, e.status(), e.code(),
                    e.getMessage(), List.of())));
            cfg.routes.exception(DomainException.class, (e, ctx) -> answering(ctx, c -> problem(c, status(e.kind()), e.code(),
                    e.getMessage(), e.errors())));
            // A path served with other methods: its details are those methods, which Allow lists.
            cfg.routes.exception(MethodNotAllowedResponse.class, (e, ctx) -> answering(ctx, c -> {
                String allowed = String.join(", ", e.getDetails().values());
                c.header("Allow", allowed);
                problem(c, 405, "method_not_allowed", c.method() + " is not allowed on " + c.path() + "; allowed: " + allowed,
                        List.of());
            }));
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> answering(ctx, c -> problem(c, e.getStatus(),
                    codeFor(e.getStatus()), e.getMessage(), List.of())));
            cfg.routes.exception(Exception.class, (e, ctx) -> answering(ctx, c -> {
                if (io.drover.server.store.Sql.isDiskFull(e)) {
                    log.error("request {} {} failed: the database's disk is full", c.method(), c.path());
                    problem(c, 503, "storage_full", "the database cannot write: its disk is full; nothing of this request"
                            + " was stored. Free space on the database's file system and send it again", List.of());
                    return;
                }
                log.error("request {} {} failed", c.method(), c.path(), e);
                problem(c, 500, "internal", "the server failed to handle the request; see the server log", List.of());
            }));
            cfg.routes.error(404, ctx -> answering(ctx, c -> {
                if (c.result() == null || c.result().isEmpty()) {
                    problem(c, 404, "not_found", "no route " + c.method() + " " + c.path(), List.of());
                }
            }));
            cfg.routes.error(405, ctx -> answering(ctx, c -> {
                if (c.result() == null || c.result().isEmpty()) {
                    problem(c, 405, "method_not_allowed", c.method() + " is not allowed on " + c.path(), List.of());
                }
            }));
            cfg.routes.after(ctx -> answering(ctx, this::afterRequest));
        }).start();
        return app;
    }

    public int port() {
        return app.port();
    }

    public void stop() {
        if (app != null) {
            app.stop();
        }
    }

    /** Every route Javalin serves, as {@code METHOD path}; used to check the OpenAPI document is complete. */
    public List<String> servedRoutes() {
        List<String> served = new ArrayList<>();
        for (ParsedEndpoint e : app.unsafe.internalRouter.allHttpHandlers()) {
            if (e.endpoint.method.isHttpMethod()) {
                served.add(e.endpoint.method.name() + " " + e.endpoint.path);
            }
        }
        return served;
    }

    /** Carries a route's other credential through Javalin to {@link #authenticate}. */
    private record AlsoTakes(OtherCredential credential) implements RouteRole {
    }

    /** Carries a route's body limit through Javalin to {@link #refuseOversizedBody}. */
    private record BodyLimit(long bytes) implements RouteRole {
    }

    /** Routes that take bodies larger than {@link Bodies#MAX_BYTES}: "METHOD path" → bytes. */
    private final Map<String, Long> bodyLimits = new java.util.HashMap<>();

    /** Lets a route take bodies of up to {@code maxBytes} (package uploads, inventory imports). */
    public void bodyLimit(HandlerType method, String path, long maxBytes) {
        bodyLimits.put(method.name() + " " + path, maxBytes);
    }

    /** Refuses a body announced larger than the route takes before any of it is read; tells {@link Bodies} the limit. */
    private void refuseOversizedBody(Context ctx) {
        long limit = ctx.routeRoles().stream().filter(BodyLimit.class::isInstance).map(r -> ((BodyLimit) r).bytes())
                .findFirst().orElse((long) Bodies.MAX_BYTES);
        ctx.attribute(Bodies.LIMIT_ATTRIBUTE, limit);
        long length = ctx.contentLength();
        if (length > limit) {
            throw new ApiException(413, "body_too_large", "the body of " + length + " bytes is larger than the "
                    + limit + " bytes this route takes");
        }
    }

    private void authenticate(Context ctx) {
        RequiredRole rule = ctx.routeRoles().stream().filter(RequiredRole.class::isInstance)
                .map(RequiredRole.class::cast).findFirst().orElse(null);
        if (rule == null) {
            return;
        }
        OtherCredential other = ctx.routeRoles().stream().filter(AlsoTakes.class::isInstance)
                .map(r -> ((AlsoTakes) r).credential()).findFirst().orElse(null);
        Role required = rule.role();
        // A valid token is served whatever its address did before: only failures count, and only failures are refused
        // past the limit, so a stranger behind the same proxy or NAT cannot lock out a user.
        String header = ctx.header("Authorization");
        if (other != null && other.presentedIn(header)) {
            Principal caller = other.check().apply(header.substring(other.scheme().length() + 1).trim()).orElse(null);
            if (caller == null) {
                refuseAuthentication(ctx, "the " + other.what() + " is unknown, expired, revoked or used up");
            }
            ctx.attribute(PRINCIPAL, caller); // the credential is this route's permission: no role to check
            return;
        }
        String or = other == null ? "" : " or '" + other.scheme() + " <" + other.what() + ">'";
        String problem = header == null || header.isBlank() ? "this route needs a token: send 'Authorization: Bearer <token>'" + or
                : !header.regionMatches(true, 0, "Bearer ", 0, 7) ? "the Authorization header must be 'Bearer <token>'" + or
                : null;
        Principal principal = problem == null ? tokens.authenticate(header.substring(7).trim()).orElse(null) : null;
        if (principal == null) {
            refuseAuthentication(ctx, problem != null ? problem : "the token is unknown, revoked or expired");
        }
        ctx.attribute(PRINCIPAL, principal);
        if (!principal.role().atLeast(required)) {
            throw ApiException.forbidden("token '" + principal.name() + "' has role " + principal.role().wireName()
                    + "; " + ctx.method() + " " + ctx.endpoint().path + " needs " + required.wireName());
        }
        if (rule.scope() == Scope.ALL_BUSINESSES && !principal.allBusinesses()) {
            throw ApiException.forbidden("token '" + principal.name() + "' is limited to businesses "
                    + principal.bizIds().stream().sorted().toList() + "; " + ctx.method() + " " + ctx.endpoint().path
                    + " concerns every business and needs a token for all of them");
        }
    }

    /** Counts a failed authentication against the client's address and answers 401, or 429 past the address's limit. */
    private void refuseAuthentication(Context ctx, String why) {
        String source = clients.of(ctx.ip(), ctx.header("X-Forwarded-For"));
        long retryAfter = authFailures.retryAfterSeconds(source);
        if (retryAfter > 0) {
            ctx.header("Retry-After", Long.toString(retryAfter));
            throw new ApiException(429, "too_many_failed_authentications", "too many failed authentications from " + source
                    + " this minute; retry after " + retryAfter + " s (a valid token is still served)");
        }
        authFailures.failed(source);
        throw ApiException.unauthorized(why);
    }

    /**
     * Runs an exception, error or after handler unless the exchange is gone. Once Jetty has recycled a request (its
     * client or the server left in the middle of a stream) every call on the context throws, and Javalin re-runs a
     * failing exception handler for as long as it fails: one such request once kept a core busy writing warnings.
     */
    private static void answering(Context ctx, Handler handler) {
        try {
            handler.handle(ctx);
        } catch (Exception gone) {
            log.debug("a request ended before it could be answered: {}", gone.toString());
        }
    }

    /** For a response already committed as 200 whose outcome is an error in its body: the status the log records. */
    static void auditAs(Context ctx, int status, String detail) {
        ctx.attribute(AUDIT_STATUS, status);
        ctx.attribute(AUDIT_DETAIL, detail);
    }

    private void afterRequest(Context ctx) {
        Integer auditStatus = ctx.attribute(AUDIT_STATUS);
        int status = auditStatus != null ? auditStatus : ctx.status().getCode();
        String route = ctx.endpoint() == null ? "unmatched" : ctx.endpoint().path;
        Long started = ctx.attribute(STARTED);
        if (started != null) {
            Timer.builder("drover.http.requests").tag("method", ctx.method().name()).tag("route", route)
                    .tag("status", Integer.toString(status)).register(metrics)
                    .record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        Principal principal = ctx.attribute(PRINCIPAL);
        // Anonymous requests are not written one by one: failed authentications are counted per address and
        // written once a minute, so that a flood of bad requests cannot grow the log.
        if (principal != null && MUTATIONS.contains(ctx.method()) && ctx.path().startsWith(API)) {
            String actor = principal.name() + "#" + principal.tokenId();
            String detail = status < 400 ? null : auditStatus != null ? ctx.attribute(AUDIT_DETAIL) : ctx.result();
            try {
                audit.record(actor, ctx.method().name(), ctx.path(), status, detail);
            } catch (RuntimeException e) {
                if (io.drover.server.store.Sql.isDiskFull(e)) {
                    log.error("cannot write the audit entry for {} {} by {} (status {}): the database's disk is full",
                            ctx.method(), ctx.path(), actor, status);
                } else {
                    log.error("cannot write the audit entry for {} {}", ctx.method(), ctx.path(), e);
                }
            }
        }
    }

    static void problem(Context ctx, int status, String code, String detail, List<Problem.FieldError> errors) {
        if (status == 413) {
            discardRestOfBody(ctx);
        }
        ctx.status(status);
        ctx.contentType(PROBLEM_JSON);
        ctx.result(problemJson(status, code, detail, errors));
    }

    static final String PROBLEM_JSON = "application/problem+json";

    /** How much of a refused body is read and thrown away so that its sender reads the refusal. */
    static final long REFUSED_BODY_DISCARD_BYTES = 8L << 20;

    /**
     * Reads and drops what is left of a refused body, up to {@link #REFUSED_BODY_DISCARD_BYTES}. A client that sends its
     * whole body before reading (Java's HttpClient, most libraries) would otherwise still be writing when the server
     * closes the connection on unread bytes; the reset that follows can destroy the 413 before the client reads it. A
     * client that asked with {@code Expect: 100-continue} and was not told to continue has sent nothing: reading would
     * tell it to send, so its body is left alone, and so is one announced larger than that: reading would only wait
     * for bytes the connection's close cuts off anyway (or that its sender never means to send).
     */
    private static void discardRestOfBody(Context ctx) {
        String expect = ctx.header("Expect");
        if (expect != null && expect.equalsIgnoreCase("100-continue") || ctx.contentLength() > REFUSED_BODY_DISCARD_BYTES) {
            return;
        }
        try {
            java.io.InputStream in = ctx.req().getInputStream();
            byte[] buffer = new byte[65536];
            long left = REFUSED_BODY_DISCARD_BYTES;
            for (int n; left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0; ) {
                left -= n;
            }
        } catch (java.io.IOException | RuntimeException e) {
            log.debug("the rest of a refused body of {} {} could not be read", ctx.method(), ctx.path(), e);
        }
    }

    /** An RFC 9457 problem document. */
    static String problemJson(int status, String code, String detail, List<Problem.FieldError> errors) {
        Problem problem = new Problem("https://drover.io/problems/" + code, title(status), status, detail, code,
                errors);
        try {
            return Json.json().writeValueAsString(problem);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return "{\"status\":" + status + "}";
        }
    }

    /** The HTTP status of a domain refusal: the one place domain errors meet HTTP. */
    static int status(DomainException.Kind kind) {
        return switch (kind) {
            case BAD_REQUEST -> 400;
            case UNAUTHENTICATED -> 401;
            case FORBIDDEN -> 403;
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case TOO_LARGE -> 413;
            case INVALID -> 422;
            case UPSTREAM_FAILED -> 502;
        };
    }

    static String codeFor(int status) {
        return switch (status) {
            case 400 -> "bad_request";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 409 -> "conflict";
            case 406 -> "not_acceptable";
            case 413 -> "body_too_large";
            case 414 -> "uri_too_long";
            case 429 -> "too_many_requests";
            case 431 -> "headers_too_large";
            default -> "http_" + status;
        };
    }

    static String title(int status) {
        return switch (status) {
            case 400 -> "Bad request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not found";
            case 405 -> "Method not allowed";
            case 406 -> "Not acceptable";
            case 409 -> "Conflict";
            case 413 -> "Body too large";
            case 414 -> "URI too long";
            case 429 -> "Too many requests";
            case 431 -> "Request headers too large";
            case 422 -> "Validation failed";
            case 500 -> "Internal error";
            case 503 -> "Unavailable";
            default -> "HTTP " + status;
        };
    }
}
