package io.drover.server.agentpackages;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.agents.AgentPackageInfo;
import io.drover.model.agents.EnrollmentTokenInfo;
import io.drover.model.auth.Role;
import io.drover.server.auth.Principal;
import io.drover.server.http.HttpApi;
import io.drover.server.http.OtherCredential;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;
import io.javalin.http.HandlerType;
import java.nio.file.Files;
import java.util.Optional;
import java.util.function.Function;

/**
 * Agent packages over REST: admins upload (the .tar.gz as the body), list and delete them; operators download them,
 * and so may an installer on a host with an enrollment token that would admit an agent now
 * ({@code Authorization: Enroll <token>}, never in the URL). Showing the token uses none of its uses.
 */
public final class AgentPackageRoutes {
    private final AgentPackageService packages;
    private final Function<String, Optional<EnrollmentTokenInfo>> enrollmentTokens;

    /** @param enrollmentTokens the enrollment token a presented secret is, while it would admit an agent */
    public AgentPackageRoutes(AgentPackageService packages, Function<String, Optional<EnrollmentTokenInfo>> enrollmentTokens) {
        this.packages = packages;
        this.enrollmentTokens = enrollmentTokens;
    }

    public void register(HttpApi api) {
        api.bodyLimit(HandlerType.POST, API + "/agent-packages", packages.maxUploadBytes());
        api.post(API + "/agent-packages", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Upload an agent package: the .tar.gz as the body, ?file_name= its name (checked against its VERSION and ARCH);"
                        + " 201, or 200 when the same bytes are stored; 409 when that version and architecture has other bytes",
                null, AgentPackageInfo.class, 201, ctx -> {
                    AgentPackageService.Stored stored = packages.upload(principal(ctx), ctx.bodyInputStream(),
                            ctx.queryParam("file_name"));
                    ctx.status(stored.created() ? 201 : 200);
                    ctx.json(stored.info());
                });
        api.get(API + "/agent-packages", Role.VIEWER, Scope.SHARED, "List agent packages: version, architecture, sha256, size",
                AgentPackageInfo.class, Shape.LIST, ctx -> ctx.json(packages.list()));
        api.get(API + "/agent-packages/{version}/{arch}", Role.OPERATOR, Scope.SHARED,
                "Download an agent package (version 'latest': the newest for arch); an installer may send "
                        + "'Authorization: Enroll <enrollment token>' instead of a token",
                null, Shape.FILE, ctx -> {
                    AgentPackageService.Download download = packages.open(ctx.pathParam("version"), ctx.pathParam("arch"));
                    ctx.contentType("application/gzip");
                    ctx.header("Content-Disposition", "attachment; filename=\"" + download.info().fileName() + "\"");
                    ctx.header("Content-Length", Long.toString(download.info().sizeBytes()));
                    ctx.result(Files.newInputStream(download.file()));
                }, new OtherCredential("Enroll", "enrollment token", secret -> enrollmentTokens.apply(secret).map(Principal::installer)));
        api.delete(API + "/agent-packages/{version}/{arch}", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Delete an agent package (hosts that installed it keep it)",
                ctx -> packages.delete(ctx.pathParam("version"), ctx.pathParam("arch")));
    }
}
