package io.drover.server.ops;

import io.drover.server.http.ApiException;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.OpenApiDocument;
import io.drover.server.http.Route;
import io.drover.server.store.Database;
import io.javalin.http.HandlerType;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;

/**
 * Liveness, readiness, Prometheus metrics and the OpenAPI document: no API token needed; {@code /metrics} asks for the
 * metrics token when one is set ({@code metrics-token-file}).
 */
public final class OpsRoutes {
    private final Database database;
    private final PrometheusMeterRegistry metrics;
    private final String version;

    private final java.util.function.BooleanSupplier transportReady;

    private final byte[] metricsToken;

    /**
     * @param transportReady whether the agent transport serves its ports (false until it is bound)
     * @param metricsToken   what {@code /metrics} requires as a bearer token; null: it is open
     */
    public OpsRoutes(Database database, PrometheusMeterRegistry metrics, String version,
                     java.util.function.BooleanSupplier transportReady, String metricsToken) {
        this.metricsToken = metricsToken == null ? null : ("Bearer " + metricsToken).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.transportReady = transportReady;
        this.database = database;
        this.metrics = metrics;
        this.version = version;
    }

    public void register(HttpApi api) {
        api.add(new Route(HandlerType.GET, "/healthz", null, Scope.NONE, "Liveness: the process answers", null, Route.Shape.ONE,
                null, 200, ctx -> ctx.json(Map.of("status", "ok"))));
        api.add(new Route(HandlerType.GET, "/readyz", null, Scope.NONE,
                "Readiness: the database answers and can write, and the agent transport serves its ports (503 naming what"
                        + " is not ready: database unreachable, database disk full, agent transport down)",
                null, Route.Shape.ONE, null, 200, ctx -> {
                    String database = !this.database.isReachable() ? "unreachable" : this.database.diskFull() ? "disk full" : "ok";
                    boolean transport = transportReady.getAsBoolean();
                    boolean ready = database.equals("ok") && transport;
                    Map<String, Object> body = new java.util.LinkedHashMap<>();
                    body.put("status", ready ? "ready" : !database.equals("ok") ? "database " + database : "agent transport down");
                    body.put("database", database);
                    body.put("transport", transport ? "ok" : "down");
                    long free = this.database.diskFreeBytes();
                    if (free >= 0) {
                        body.put("disk_free_bytes", free);
                    }
                    ctx.status(ready ? 200 : 503).json(body);
                }));
        api.add(new Route(HandlerType.GET, "/metrics", null, Scope.NONE, "Prometheus metrics", null, Route.Shape.TEXT, null, 200,
                ctx -> {
                    if (metricsToken != null && !java.security.MessageDigest.isEqual(metricsToken,
                            String.valueOf(ctx.header("Authorization")).getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
                        throw ApiException.unauthorized("/metrics needs the metrics token (setting metrics-token-file):"
                                + " send 'Authorization: Bearer <token>'");
                    }
                    ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape());
                }));
        api.add(new Route(HandlerType.GET, HttpApi.API + "/openapi.json", null, Scope.NONE, "This OpenAPI document", null,
                Route.Shape.ONE, null, 200, ctx -> ctx.json(OpenApiDocument.build(api.routes(), version))));
    }
}
