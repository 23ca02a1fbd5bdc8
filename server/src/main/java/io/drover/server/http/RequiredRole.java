package io.drover.server.http;

import io.drover.model.auth.Role;
import io.javalin.security.RouteRole;

/** Carries a route's minimum role and scope through Javalin to the authenticator. */
record RequiredRole(Role role, Scope scope) implements RouteRole {
}
