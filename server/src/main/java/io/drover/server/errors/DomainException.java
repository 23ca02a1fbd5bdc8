package io.drover.server.errors;

import io.drover.model.api.Problem.FieldError;
import java.util.List;

/**
 * What a service refuses, in the domain's words: its kind (not found, conflict, invalid with the bad fields, …),
 * Drover's stable error code and the detail. The HTTP layer alone turns the kind into a status and a problem
 * document; services never speak HTTP.
 */
public final class DomainException extends RuntimeException {
    /** The kinds of refusal. */
    public enum Kind { BAD_REQUEST, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, TOO_LARGE, INVALID, UPSTREAM_FAILED }

    private final Kind kind;
    private final String code;
    private final List<FieldError> errors;

    public DomainException(Kind kind, String code, String detail, List<FieldError> errors) {
        super(detail);
        this.kind = kind;
        this.code = code;
        this.errors = errors == null ? List.of() : List.copyOf(errors);
    }

    public static DomainException badRequest(String code, String detail) {
        return new DomainException(Kind.BAD_REQUEST, code, detail, List.of());
    }

    public static DomainException unauthorized(String detail) {
        return new DomainException(Kind.UNAUTHENTICATED, "unauthorized", detail, List.of());
    }

    public static DomainException forbidden(String detail) {
        return new DomainException(Kind.FORBIDDEN, "forbidden", detail, List.of());
    }

    /** Refused fields of a body that name what the caller may not touch, every one named. */
    public static DomainException forbidden(String detail, List<FieldError> errors) {
        return new DomainException(Kind.FORBIDDEN, "forbidden", detail, errors);
    }

    public static DomainException notFound(String what, Object id) {
        return new DomainException(Kind.NOT_FOUND, "not_found", what + " " + id + " does not exist", List.of());
    }

    public static DomainException conflict(String code, String detail) {
        return new DomainException(Kind.CONFLICT, code, detail, List.of());
    }

    public static DomainException tooLarge(String code, String detail) {
        return new DomainException(Kind.TOO_LARGE, code, detail, List.of());
    }

    /** Something the server depends on (a registry) failed. */
    public static DomainException upstreamFailed(String code, String detail) {
        return new DomainException(Kind.UPSTREAM_FAILED, code, detail, List.of());
    }

    /** Well-formed but not acceptable, with its own code ({@code invalid_package}, {@code unresolvable}, …). */
    public static DomainException unprocessable(String code, String detail, List<FieldError> errors) {
        return new DomainException(Kind.INVALID, code, detail, errors);
    }

    /** Bad fields, every one named. */
    public static DomainException invalid(List<FieldError> errors) {
        String detail = errors.size() == 1
                ? errors.getFirst().field() + " " + errors.getFirst().message()
                : errors.size() + " fields are invalid; the first is " + errors.getFirst().field() + " "
                        + errors.getFirst().message();
        return new DomainException(Kind.INVALID, "validation_failed", detail, errors);
    }

    public static DomainException invalid(String field, String message) {
        return invalid(List.of(new FieldError(field, message)));
    }

    public Kind kind() {
        return kind;
    }

    public String code() {
        return code;
    }

    public List<FieldError> errors() {
        return errors;
    }
}
