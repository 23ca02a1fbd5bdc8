package io.drover.server.diagnosis;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.core.diagnosis.Alert;
import io.drover.model.auth.Role;
import io.drover.model.diagnosis.AlertReceipt;
import io.drover.model.diagnosis.DiagnosesStarted;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisObject;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.server.errors.DomainException;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Diagnosis over REST: the library (operations, operation sets, triggers; admins change it, as it runs code on
 * hosts), diagnoses (operators start them on hosts of their businesses), and the alert webhook Alertmanager posts to.
 */
public final class DiagnosisRoutes {
    private final DiagnosisModule diagnosis;
    private final Clock clock;

    public DiagnosisRoutes(DiagnosisModule diagnosis, Clock clock) {
        this.diagnosis = diagnosis;
        this.clock = clock;
    }

    public void register(HttpApi api) {
        DiagnosisCatalog catalog = diagnosis.catalog();
        for (Map.Entry<String, String> kind : new java.util.TreeMap<>(DiagnosisObject.kinds()).entrySet()) {
            String base = API + "/diagnosis/" + kind.getKey();
            String name = kind.getValue();
            api.get(base, Role.VIEWER, Scope.SHARED, "List the " + name + "s of the diagnosis library", DiagnosisObject.Summary.class,
                    Shape.LIST, ctx -> ctx.json(catalog.list(name)));
            api.get(base + "/{name}", Role.VIEWER, Scope.SHARED, "One " + name + " as applied (an OperationSet with its paths)",
                    DiagnosisObject.class, Shape.ONE, ctx -> ctx.json(catalog.get(name, ctx.pathParam("name"))));
            api.put(base + "/{name}", Role.ADMIN, Scope.ALL_BUSINESSES, "Create or replace a " + name + " (KubeDiag's document, JSON or YAML)",
                    KubeDocument.class, DiagnosisObject.class,
                    ctx -> ctx.json(catalog.put(name, ctx.pathParam("name"), Bodies.read(ctx, KubeDocument.class))));
            api.delete(base + "/{name}", Role.ADMIN, Scope.ALL_BUSINESSES, "Delete a " + name + " (refused while something uses it)", ctx -> {
                catalog.delete(name, ctx.pathParam("name"));
                ctx.status(204);
            });
        }
        Diagnoses diagnoses = diagnosis.diagnoses();
        api.post(API + "/diagnoses", Role.OPERATOR, Scope.BUSINESS,
                "Start a diagnosis (KubeDiag's Diagnosis document; spec.nodeName or spec.hosts name the hosts), one per host",
                KubeDocument.class, DiagnosesStarted.class, 201,
                ctx -> ctx.status(201).json(diagnoses.create(principal(ctx), Bodies.read(ctx, KubeDocument.class))));
        api.get(API + "/diagnoses", Role.VIEWER, Scope.BUSINESS, "The newest diagnoses (?phase=Running, ?limit=N up to 1000)",
                DiagnosisInfo.Summary.class, Shape.LIST, ctx -> ctx.json(diagnoses.list(principal(ctx), ctx.queryParam("phase"),
                        (int) Params.bounded(ctx, "limit", 100, 1, 1000))));
        api.get(API + "/diagnoses/{id}", Role.VIEWER, Scope.BUSINESS,
                "A diagnosis with its status; ?wait=S (up to 60) answers when it ends or after S seconds", DiagnosisInfo.class, Shape.ONE,
                ctx -> ctx.json(diagnoses.get(principal(ctx), Params.pathId(ctx, "id"),
                        Duration.ofSeconds(Params.bounded(ctx, "wait", 0, 0, 60)))));
        api.post(API + "/diagnoses/{id}/cancel", Role.OPERATOR, Scope.BUSINESS,
                "Cancel a running diagnosis: phase Cancelled (no further node runs, from any server of the cluster), then the "
                        + "running operation's process group is killed on the agent; the Cancelled condition says what the kill did. "
                        + "A cancelled diagnosis is answered as it is; 409 when it succeeded or failed",
                null, DiagnosisInfo.class, 200, ctx -> ctx.json(diagnoses.cancel(principal(ctx), Params.pathId(ctx, "id"))));
        api.delete(API + "/diagnoses/{id}", Role.OPERATOR, Scope.BUSINESS,
                "Delete a diagnosis that has ended; 409 while it runs (cancel it first)", ctx -> {
                    diagnoses.delete(principal(ctx), Params.pathId(ctx, "id"));
                    ctx.status(204);
                });
        api.post(API + "/alerts", Role.ALERTS, Scope.BUSINESS,
                "Prometheus alerts (Alertmanager's webhook payload, or a list of alerts) start diagnoses through the triggers",
                JsonNode.class, AlertReceipt.class, 200,
                ctx -> ctx.json(diagnosis.alerts().receive(principal(ctx), alerts(Bodies.read(ctx, JsonNode.class), clock.instant()))));
    }

    /** The alerts of Alertmanager's webhook payload ({@code {"alerts": [...]}}) or of a bare list, checked field by field. */
    static List<Alert> alerts(JsonNode body, Instant now) {
        JsonNode list = body.isArray() ? body : body.path("alerts");
        if (!list.isArray()) {
            throw DomainException.invalid("alerts", "is required: Alertmanager's webhook payload or a list of alerts");
        }
        if (list.size() > AlertIntake.MAX_ALERTS) {
            throw DomainException.invalid("alerts", "has " + list.size() + " alerts, more than " + AlertIntake.MAX_ALERTS);
        }
        List<Alert> alerts = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "alerts[" + i + "]";
            JsonNode alert = list.get(i);
            if (!alert.isObject()) {
                throw DomainException.invalid(field, "must be an alert object");
            }
            String endsAt = text(alert, "endsAt", field);
            String status = text(alert, "status", field);
            if (status == null && endsAt != null && !endsAt.startsWith("0001-")) {
                // A bare alert (Prometheus's own form) is resolved once its endsAt has passed.
                try {
                    status = Instant.parse(endsAt).isAfter(now) ? "firing" : "resolved";
                } catch (RuntimeException e) {
                    throw DomainException.invalid(field + ".endsAt", "'" + endsAt + "' is not an RFC 3339 time");
                }
            }
            alerts.add(new Alert(status == null ? "firing" : status, strings(alert, "labels", field), strings(alert, "annotations", field),
                    text(alert, "startsAt", field), endsAt, text(alert, "generatorURL", field), text(alert, "fingerprint", field)));
        }
        return alerts;
    }

    private static String text(JsonNode alert, String key, String field) {
        JsonNode value = alert.get(key);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw DomainException.invalid(field + "." + key, "must be text");
        }
        if (key.equals("fingerprint") && !value.asText().matches("[0-9A-Za-z]{1,64}")) {
            throw DomainException.invalid(field + ".fingerprint", "must be 1 to 64 letters and digits");
        }
        return value.asText();
    }

    private static Map<String, String> strings(JsonNode alert, String key, String field) {
        JsonNode value = alert.get(key);
        Map<String, String> out = new LinkedHashMap<>();
        if (value == null || value.isNull()) {
            return out;
        }
        if (!value.isObject()) {
            throw DomainException.invalid(field + "." + key, "must be a mapping of text");
        }
        for (Map.Entry<String, JsonNode> entry : value.properties()) {
            if (!entry.getValue().isTextual()) {
                throw DomainException.invalid(field + "." + key + "." + entry.getKey(), "must be text");
            }
            out.put(entry.getKey(), entry.getValue().asText());
        }
        return out;
    }
}
