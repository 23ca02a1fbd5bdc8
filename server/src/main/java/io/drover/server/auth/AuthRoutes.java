package io.drover.server.auth;

import static io.drover.server.http.HttpApi.API;

import io.drover.model.auth.AuditEntry;
import io.drover.model.auth.Caller;
import io.drover.model.auth.CreatedToken;
import io.drover.model.auth.Role;
import io.drover.model.auth.TokenInfo;
import io.drover.model.auth.TokenRequest;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;

/** Token management and the audit log: admin only. */
public final class AuthRoutes {
    private final TokenStore tokens;
    private final AuditStore audit;

    public AuthRoutes(TokenStore tokens, AuditStore audit) {
        this.tokens = tokens;
        this.audit = audit;
    }

    public void register(HttpApi api) {
        api.get(API + "/whoami", Role.VIEWER, Scope.BUSINESS, "The calling token: its name, role and businesses (empty = all)",
                Caller.class, Shape.ONE, ctx -> {
                    Principal caller = HttpApi.principal(ctx);
                    ctx.json(new Caller(caller.tokenId(), caller.name(), caller.role(),
                            caller.bizIds().stream().sorted().toList()));
                });
        api.get(API + "/tokens", Role.ADMIN, Scope.ALL_BUSINESSES, "List tokens (never their secrets)", TokenInfo.class, Shape.LIST,
                ctx -> ctx.json(tokens.list()));
        api.post(API + "/tokens", Role.ADMIN, Scope.ALL_BUSINESSES, "Create a token; the secret is in this response only",
                TokenRequest.class, CreatedToken.class, 201,
                ctx -> {
                    HttpApi.principal(ctx).requireAllBusinesses("create tokens");
                    ctx.json(tokens.create(Bodies.read(ctx, TokenRequest.class)));
                });
        api.delete(API + "/tokens/{id}", Role.ADMIN, Scope.ALL_BUSINESSES, "Revoke a token",
                ctx -> tokens.revoke(Params.pathId(ctx, "id")));
        api.get(API + "/audit", Role.ADMIN, Scope.ALL_BUSINESSES, "The audit log of mutations, newest first, paged", AuditEntry.class,
                Shape.PAGE, ctx -> ctx.json(audit.list(Params.offset(ctx), Params.limit(ctx))));
    }
}
