package io.drover.model.plans;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.drover.model.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * JSON as plans and results are written: keys exactly as given (FormatVersion, SourceID…) and null values kept
 * ({@code "AdditionalInfo": null}), unlike Drover's own snake_case documents; nesting bounded and nothing after the
 * document, as everywhere.
 */
public final class PlanJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(Json.MAX_NESTING).build());
    }

    private PlanJson() {
    }

    /** A document: a map, a list or a scalar. */
    public static Object read(byte[] json) throws IOException {
        return MAPPER.readValue(json, Object.class);
    }

    public static Object read(String json) throws IOException {
        return MAPPER.readValue(json, Object.class);
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] bytes(Map<String, Object> document) {
        try {
            return MAPPER.writeValueAsBytes(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
