package io.drover.server.agentinstall;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.agentinstall.AgentInstallRequest;
import io.drover.model.agentinstall.AgentInstallRetry;
import io.drover.model.agentinstall.AgentInstallTask;
import io.drover.model.agentinstall.SshHostKey;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.auth.Role;
import io.drover.server.errors.DomainException;
import io.drover.server.http.ApiException;
import io.javalin.http.Context;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;

/**
 * Agent installs over SSH: start one, follow it, retry its failed hosts; the host keys recorded, and forgetting one.
 * Host keys are server-wide (one address and port may be installed in several businesses), so listing them needs a
 * token for every business, and forgetting one, which lets whoever answers at that address next be trusted, an admin.
 */
public final class AgentInstallRoutes {
    private final AgentInstallService installs;

    public AgentInstallRoutes(AgentInstallService installs) {
        this.installs = installs;
    }

    public void register(HttpApi api) {
        api.post(API + "/agent-installs", Role.OPERATOR, Scope.BUSINESS,
                "Install agents on hosts over SSH, enrolled in the business of the body; the SSH key or password is used "
                        + "for this run only and never stored",
                AgentInstallRequest.class, AgentInstallTask.class, 202,
                ctx -> ctx.json(installs.start(principal(ctx), withCredentials(ctx, AgentInstallRequest.class))));
        api.get(API + "/agent-installs", Role.VIEWER, Scope.BUSINESS, "List agent installs, newest first (without hosts)",
                AgentInstallTask.class, Shape.LIST, ctx -> ctx.json(installs.list(principal(ctx))));
        // before /agent-installs/{id}, which would take "host-keys" for an id
        api.get(API + "/agent-installs/host-keys", Role.OPERATOR, Scope.ALL_BUSINESSES,
                "The SSH host keys recorded at the first contact of agent installs, by address and port (of every business)",
                SshHostKey.class, Shape.LIST, ctx -> ctx.json(installs.hostKeys()));
        api.delete(API + "/agent-installs/host-keys/{address}/{port}", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Forget the SSH host key recorded for an address and port (a host re-installed on purpose): the next "
                        + "contact records the key it presents then",
                ctx -> installs.forgetHostKey(principal(ctx), ctx.pathParam("address"), ctx.pathParam("port")));
        api.get(API + "/agent-installs/{id}", Role.VIEWER, Scope.BUSINESS, "One agent install with its hosts and their steps",
                AgentInstallTask.class, Shape.ONE, ctx -> ctx.json(installs.get(principal(ctx), Params.pathId(ctx, "id"))));
        api.post(API + "/agent-installs/{id}/retry", Role.OPERATOR, Scope.BUSINESS,
                "Install the failed hosts of an ended agent install again, with the SSH credentials given again",
                AgentInstallRetry.class, AgentInstallTask.class, 202,
                ctx -> ctx.json(installs.retry(principal(ctx), Params.pathId(ctx, "id"),
                        withCredentials(ctx, AgentInstallRetry.class))));
    }

    /**
     * The body, which holds credentials: a parse error names the field but never repeats what the body held (a JSON
     * parser quotes the token it could not read, and refusals are written to the audit log).
     */
    static <T> T withCredentials(Context ctx, Class<T> type) {
        try {
            return Bodies.read(ctx, type);
        } catch (ApiException e) {
            if (e.status() == 413) {
                throw e;
            }
            throw ApiException.badRequest("malformed_body", "the body is not a valid " + type.getSimpleName()
                    + " JSON object (the parser's message is not shown: the body holds credentials)");
        } catch (DomainException e) {
            throw DomainException.invalid(e.errors().stream().map(f -> new FieldError(f.field(), "is not valid here "
                    + "(wrong type, unknown field or a control character)")).toList());
        }
    }
}
