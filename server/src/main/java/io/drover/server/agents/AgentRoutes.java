package io.drover.server.agents;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.agents.AgentInfo;
import io.drover.model.agents.AgentLinkRequest;
import io.drover.model.agents.CreatedEnrollmentToken;
import io.drover.model.agents.EnrollmentTokenInfo;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.auth.Role;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import java.util.Map;

/** Agents (presence, host, version) and the enrollment tokens that admit them. */
public final class AgentRoutes {
    private final AgentRegistry agents;
    private final EnrollmentTokenStore enrollment;

    public AgentRoutes(AgentRegistry agents, EnrollmentTokenStore enrollment) {
        this.agents = agents;
        this.enrollment = enrollment;
    }

    public void register(HttpApi api) {
        api.get(API + "/agents", Role.VIEWER, Scope.BUSINESS, "List agents: key state, host, online, version, last seen",
                AgentInfo.class, Shape.LIST, ctx -> ctx.json(agents.list(principal(ctx))));
        api.get(API + "/agents/{id}", Role.VIEWER, Scope.BUSINESS, "One agent", AgentInfo.class, Shape.ONE,
                ctx -> ctx.json(agents.get(principal(ctx), ctx.pathParam("id"))));
        api.post(API + "/agents/{id}/link", Role.ADMIN, Scope.BUSINESS,
                "Link an agent to a host (one left unlinked by a link conflict, say): 409 when the host has another agent "
                        + "unless force (that agent is unlinked), or is of another business than the agent's unless move_business",
                AgentLinkRequest.class, AgentInfo.class, 200,
                ctx -> ctx.json(agents.linkByAdmin(principal(ctx), ctx.pathParam("id"), Bodies.read(ctx, AgentLinkRequest.class))));
        api.get(API + "/agents/{id}/grains", Role.VIEWER, Scope.BUSINESS, "The facts (grains) an agent last reported", Map.class,
                Shape.ONE, ctx -> {
                    agents.get(principal(ctx), ctx.pathParam("id"));
                    ctx.json(agents.grains(ctx.pathParam("id")));
                });
        api.get(API + "/enrollment-tokens", Role.ADMIN, Scope.BUSINESS, "List enrollment tokens (never their secrets)",
                EnrollmentTokenInfo.class, Shape.LIST, ctx -> ctx.json(enrollment.list(principal(ctx))));
        api.post(API + "/enrollment-tokens", Role.ADMIN, Scope.BUSINESS,
                "Create an enrollment token: agents presenting it are accepted into its business; the secret is in this response only",
                EnrollmentTokenRequest.class, CreatedEnrollmentToken.class, 201,
                ctx -> ctx.json(enrollment.create(principal(ctx), Bodies.read(ctx, EnrollmentTokenRequest.class))));
        api.delete(API + "/enrollment-tokens/{id}", Role.ADMIN, Scope.BUSINESS, "Revoke an enrollment token",
                ctx -> enrollment.revoke(principal(ctx), Params.pathId(ctx, "id")));
    }
}
