package io.drover.server.secrets;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.auth.Role;
import io.drover.model.secrets.SecretInfo;
import io.drover.model.secrets.SecretRequest;
import io.drover.server.errors.DomainException;
import io.drover.server.http.ApiException;
import io.drover.server.http.Bodies;
import io.javalin.http.Context;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;

/** A business's secrets (docs/operations.md, "Secrets for plugins"): set, listed by name, deleted; never read back. */
public final class SecretRoutes {
    private final SecretStore secrets;

    public SecretRoutes(SecretStore secrets) {
        this.secrets = secrets;
    }

    /**
     * The body, or 400 without the parser's words: they quote what they could not read (a bare value, a misplaced
     * one taken for a field name), which here is the secret, and a refusal's detail goes to the audit log.
     */
    private static SecretRequest body(Context ctx) {
        try {
            return Bodies.read(ctx, SecretRequest.class);
        } catch (ApiException e) {
            if (e.status() == 413) {
                throw e;
            }
            throw malformed();
        } catch (DomainException e) {
            throw malformed();
        }
    }

    private static ApiException malformed() {
        return ApiException.badRequest("malformed_body", "the body must be a JSON object with one string field, "
                + "{\"value\": \"…\"} (what could not be read is not repeated: it may be the secret)");
    }

    public void register(HttpApi api) {
        String base = API + "/businesses/{bk_biz_id}/secrets";
        api.get(base, Role.VIEWER, Scope.BUSINESS, "The business's secrets: names and times, never values", SecretInfo.class,
                Shape.LIST, ctx -> ctx.json(secrets.list(principal(ctx), Params.pathId(ctx, "bk_biz_id"))));
        api.put(base + "/{name}", Role.OPERATOR, Scope.BUSINESS,
                "Set a secret that subscription steps reference as {secret: NAME}; the value is stored sealed and never answered",
                SecretRequest.class, SecretInfo.class,
                ctx -> ctx.json(secrets.put(principal(ctx), Params.pathId(ctx, "bk_biz_id"), ctx.pathParam("name"),
                        body(ctx).value())));
        api.delete(base + "/{name}", Role.OPERATOR, Scope.BUSINESS, "Delete a secret no subscription references",
                ctx -> secrets.delete(principal(ctx), Params.pathId(ctx, "bk_biz_id"), ctx.pathParam("name")));
    }
}
