package io.drover.model.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** An RFC 9457 problem document with Drover's stable {@code code} and, for validation, every bad field. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Problem(String type, String title, int status, String detail, String code, List<FieldError> errors) {

    public record FieldError(String field, String message) {
    }
}
