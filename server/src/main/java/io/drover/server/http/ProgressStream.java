package io.drover.server.http;

import io.drover.model.Json;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long request that reports its progress as newline-delimited JSON when the client asks for it with
 * {@code Accept: application/x-ndjson}: {@code {"progress": …}} lines, then {@code {"result": …}} or
 * {@code {"error": problem}}. A failure before the first progress line is answered as any other (problem+json with
 * its status); once a line was sent the status is 200, so the outcome is the last line.
 */
public final class ProgressStream {
    public static final String NDJSON = "application/x-ndjson";
    private static final Logger log = LoggerFactory.getLogger(ProgressStream.class);

    private final Context ctx;
    private OutputStream out;

    private ProgressStream(Context ctx) {
        this.ctx = ctx;
    }

    /** Runs {@code work}, handing it a progress reporter that is silent unless the client asked for progress. */
    public static <T> void respond(Context ctx, Function<java.util.function.Consumer<Object>, T> work) {
        String accept = ctx.header("Accept");
        if (accept == null || !accept.contains(NDJSON)) {
            ctx.json(work.apply(progress -> { }));
            return;
        }
        ProgressStream stream = new ProgressStream(ctx);
        stream.run(() -> work.apply(stream::progress));
    }

    private <T> void run(Supplier<T> work) {
        T result;
        try {
            result = work.get();
        } catch (ApiException e) {
            if (out == null) {
                throw e;
            }
            fail(e.status(), HttpApi.problemJson(e.status(), e.code(), e.getMessage(), java.util.List.of()));
            return;
        } catch (io.drover.server.errors.DomainException e) {
            if (out == null) {
                throw e;
            }
            int status = HttpApi.status(e.kind());
            fail(status, HttpApi.problemJson(status, e.code(), e.getMessage(), e.errors()));
            return;
        } catch (RuntimeException e) {
            if (out == null) {
                throw e;
            }
            log.error("request {} {} failed after reporting progress", ctx.method(), ctx.path(), e);
            fail(500, HttpApi.problemJson(500, "internal", "the server failed to handle the request; see the server log",
                    java.util.List.of()));
            return;
        }
        if (out == null) {
            ctx.json(result);
        } else {
            line(io.drover.model.api.ProgressLine.result(result));
        }
    }

    private void progress(Object progress) {
        if (out == null) {
            ctx.status(200);
            ctx.contentType(NDJSON);
            try {
                out = ctx.res().getOutputStream();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        line(io.drover.model.api.ProgressLine.progress(progress));
    }

    private void fail(int status, String problem) {
        HttpApi.auditAs(ctx, status, problem);
        write("{\"error\":" + problem + "}\n");
    }

    private void line(Object value) {
        try {
            write(Json.json().writeValueAsString(value) + "\n");
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void write(String text) {
        try {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            // the client went away; the work goes on (an import still commits) and the log says so once
            log.debug("progress for {} {} could not be sent: {}", ctx.method(), ctx.path(), e.toString());
        }
    }
}
