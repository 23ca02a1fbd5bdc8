package io.drover.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/** Answers the errors Jetty raises before a route runs with a problem document instead of an HTML page. */
final class ProblemErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(Request request, Response response, int status, String message, Throwable cause,
                                    Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, HttpApi.PROBLEM_JSON);
        if (status == 400) {
            // a request Jetty refused as malformed (a NUL or an ambiguous encoding in its path): Jetty does not keep
            // the connection after it, so the answer says so
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        response.write(true, body(status, message), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, HttpApi.PROBLEM_JSON);
        // Jetty closes the connection after a message it could not parse; saying so keeps a client from sending its
        // next request into the closed connection (the JDK's client then gets no answer at all)
        fields.put(HttpHeader.CONNECTION, "close");
        return body(status, reason);
    }

    private static ByteBuffer body(int status, String message) {
        String detail = switch (status) {
            case 414 -> "the request line is too long: the path and query may hold at most 8 KiB";
            case 431 -> "the request headers are too large: at most 8 KiB";
            default -> message == null || message.isBlank() ? HttpApi.title(status) : "the request was refused: " + message;
        };
        return ByteBuffer.wrap(HttpApi.problemJson(status, HttpApi.codeFor(status), detail, List.of())
                .getBytes(StandardCharsets.UTF_8));
    }
}
