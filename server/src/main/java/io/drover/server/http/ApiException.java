package io.drover.server.http;

import io.drover.server.errors.DomainException;
import io.drover.model.api.Problem.FieldError;
import java.util.List;

/**
 * A request the HTTP layer refuses for HTTP reasons (authentication, a malformed request, content negotiation),
 * carrying the status and Drover's stable error code; rendered as application/problem+json. Services refuse with
 * {@link io.drover.server.errors.DomainException} instead.
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
