package io.drover.server.http;

/**
 * A request the HTTP layer refuses for HTTP reasons (authentication, a malformed request, content negotiation),
 * carrying the status and Drover's stable error code; rendered as application/problem+json. Services refuse with
 * {@link io.drover.server.errors.DomainException} instead.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;

    public ApiException(int status, String code, String detail) {
        super(detail);
        this.status = status;
        this.code = code;
    }

    public static ApiException badRequest(String code, String detail) {
        return new ApiException(400, code, detail);
    }

    public static ApiException unauthorized(String detail) {
        return new ApiException(401, "unauthorized", detail);
    }

    public static ApiException forbidden(String detail) {
        return new ApiException(403, "forbidden", detail);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
