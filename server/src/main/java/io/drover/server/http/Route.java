package io.drover.server.http;

import io.drover.model.auth.Role;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

/**
 * One HTTP route with what the OpenAPI document says of it. {@code role} null means no token is needed;
 * {@code scope} says what a token limited to some businesses may do. {@code body} and {@code response} name the
 * JSON types, or are null.
 */
public record Route(HandlerType method, String path, Role role, Scope scope, String summary, Class<?> body, Shape shape,
                    Class<?> response, int status, Handler handler) {

    public Route {
        if ((role == null) != (scope == Scope.NONE)) {
            throw new IllegalArgumentException(method + " " + path + ": a route needs a role unless its scope is NONE");
        }
    }

    /** How the response body holds the response type. */
    public enum Shape { NONE, ONE, LIST, PAGE, TEXT, EVENT_STREAM }
}
