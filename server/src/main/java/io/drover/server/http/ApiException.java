package io.drover.server.http;

import io.drover.model.api.Problem.FieldError;
import java.util.List;

/**
 * A request that cannot be served, carrying the HTTP status, Drover's stable error code and, for validation
 * failures, every bad field. Thrown anywhere below a route; rendered once as application/problem+json.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;
    private final List<FieldError> errors;

    public ApiException(int status, String code, String detail, List<FieldError> errors) {
        super(detail);
        this.status = status;
        this.code = code;
        this.errors = errors == null ? List.of() : List.copyOf(errors);
    }

    public static ApiException badRequest(String code, String detail) {
        return new ApiException(400, code, detail, List.of());
    }

    public static ApiException unauthorized(String detail) {
        return new ApiException(401, "unauthorized", detail, List.of());
    }

    public static ApiException forbidden(String detail) {
        return new ApiException(403, "forbidden", detail, List.of());
    }

    public static ApiException notFound(String what, Object id) {
        return new ApiException(404, "not_found", what + " " + id + " does not exist", List.of());
    }

    public static ApiException conflict(String code, String detail) {
        return new ApiException(409, code, detail, List.of());
    }

    public static ApiException invalid(List<FieldError> errors) {
        String detail = errors.size() == 1
                ? errors.getFirst().field() + " " + errors.getFirst().message()
                : errors.size() + " fields are invalid; the first is " + errors.getFirst().field() + " "
                        + errors.getFirst().message();
        return new ApiException(422, "validation_failed", detail, errors);
    }

    public static ApiException invalid(String field, String message) {
        return invalid(List.of(new FieldError(field, message)));
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public List<FieldError> errors() {
        return errors;
    }
}
