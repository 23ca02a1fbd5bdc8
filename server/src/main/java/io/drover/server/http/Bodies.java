package io.drover.server.http;

import io.drover.server.errors.DomainException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.drover.model.Json;
import io.javalin.http.Context;
import io.drover.model.api.Problem.FieldError;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads request bodies (JSON, or YAML when the content type says so) into records, with precise errors: the
 * document is parsed (nesting bounded, nothing after it), its texts checked ({@link TextRules}), then mapped.
 */
public final class Bodies {
    private Bodies() {
    }

    /** The largest JSON or YAML body a route takes unless it says otherwise ({@link HttpApi#bodyLimit}). */
    public static final int MAX_BYTES = 1_000_000;
    static final String LIMIT_ATTRIBUTE = "drover.body-limit";

    public static <T> T read(Context ctx, Class<T> type) {
        T value = readOptional(ctx, type);
        if (value == null) {
            throw ApiException.badRequest("missing_body", "the request needs a JSON body");
        }
        return value;
    }

    /** As {@link #read}, but null when the request has no body. */
    public static <T> T readOptional(Context ctx, Class<T> type) {
        byte[] bytes = bounded(ctx);
        if (bytes.length == 0) {
            return null;
        }
        String contentType = String.valueOf(ctx.contentType());
        ObjectMapper mapper = contentType.contains("yaml") ? Json.yaml() : Json.json();
        try {
            JsonNode tree = mapper.readTree(bytes);
            if (tree == null || tree.isMissingNode() || tree.isNull()) {
                throw ApiException.badRequest("missing_body", "the request body is empty");
            }
            List<FieldError> bad = TextRules.check(tree);
            if (!bad.isEmpty()) {
                throw DomainException.invalid(bad);
            }
            return mapper.treeToValue(tree, type);
        } catch (UnrecognizedPropertyException e) {
            throw DomainException.invalid(path(e), "is not a known field");
        } catch (InvalidFormatException e) {
            throw DomainException.invalid(path(e), "'" + e.getValue() + "' is not a valid "
                    + e.getTargetType().getSimpleName().toLowerCase(java.util.Locale.ROOT));
        } catch (MismatchedInputException e) {
            String field = path(e);
            if (field.isEmpty()) {
                throw ApiException.badRequest("malformed_body", "the body is not a " + type.getSimpleName()
                        + " object: " + e.getOriginalMessage());
            }
            throw DomainException.invalid(field, "has the wrong type: " + e.getOriginalMessage());
        } catch (JsonMappingException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            String field = path(e);
            throw DomainException.invalid(field.isEmpty() ? "body" : field, cause.getMessage());
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("malformed_body", "the body is not valid "
                    + (mapper == Json.yaml() ? "YAML" : "JSON") + ": " + e.getOriginalMessage()
                    + (e.getLocation() != null ? " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() : ""));
        } catch (IOException e) {
            throw ApiException.badRequest("malformed_body", "the body cannot be read: " + e.getMessage());
        }
    }

    /** The body, read up to the route's limit: a chunked body (no length announced) is cut off there, not buffered whole. */
    private static byte[] bounded(Context ctx) {
        Long routeLimit = ctx.attribute(LIMIT_ATTRIBUTE);
        int limit = (int) Math.min(Integer.MAX_VALUE - 8, routeLimit == null ? MAX_BYTES : routeLimit);
        try (java.io.InputStream in = ctx.bodyInputStream()) {
            byte[] bytes = in.readNBytes(limit + 1);
            if (bytes.length > limit) {
                throw new ApiException(413, "body_too_large", "the body is larger than the " + limit
                        + " bytes this route takes");
            }
            return bytes;
        } catch (IOException e) {
            throw ApiException.badRequest("malformed_body", "the body cannot be read: " + e.getMessage());
        }
    }

    /** The JSON path of a mapping error, as {@code hosts[2].bk_host_innerip}. */
    static String path(JsonMappingException e) {
        return e.getPath().stream().map(ref -> ref.getFieldName() != null ? "." + ref.getFieldName()
                : "[" + ref.getIndex() + "]").collect(Collectors.joining()).replaceFirst("^\\.", "");
    }
}
