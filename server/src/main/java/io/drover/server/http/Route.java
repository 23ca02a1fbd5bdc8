package io.drover.server.http;

import io.drover.model.auth.Role;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

/**
 * One HTTP route with what the OpenAPI document says of it. {@code role} null means no token is needed;
 * {@code scope} says what a token limited to some businesses may do. {@code body} and {@code response} name the
 * JSON types, or are null. {@code otherCredential}, when given, is a credential the route also takes instead of a
 * token (see {@link OtherCredential}).
 */
public record Route(HandlerType method, String path, Role role, Scope scope, String summary, Class<?> body, Shape shape,
                    Class<?> response, int status, Handler handler, OtherCredential otherCredential) {

    public Route {
        if ((role == null) != (scope == Scope.NONE)) {
            throw new IllegalArgumentException(method + " " + path + ": a route needs a role unless its scope is NONE");
        }
        if (otherCredential != null && role == null) {
            throw new IllegalArgumentException(method + " " + path + ": a route without a token takes no other credential");
        }
    }

    public Route(HandlerType method, String path, Role role, Scope scope, String summary, Class<?> body, Shape shape,
                 Class<?> response, int status, Handler handler) {
        this(method, path, role, scope, summary, body, shape, response, status, handler, null);
    }

    /** How the response body holds the response type; FILE: the bytes of a file (an agent package). */
    public enum Shape { NONE, ONE, LIST, PAGE, TEXT, EVENT_STREAM, FILE }
}
