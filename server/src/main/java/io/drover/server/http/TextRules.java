package io.drover.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.api.Problem.FieldError;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What every text in a request body must be, whatever the field: no control characters but tab, line feed and
 * carriage return (PostgreSQL cannot store NUL; the others are invisible in names and logs), no unpaired UTF-16
 * surrogate (it has no UTF-8 encoding), at most {@link #MAX_TEXT_CHARS} characters. Field names included.
 */
final class TextRules {
    static final int MAX_TEXT_CHARS = 1 << 20;
    private static final int MAX_ERRORS = 20;

    private TextRules() {
    }

    /** Every offending text with its JSON path; empty when all are fine. Nesting is bounded by the parser. */
    static List<FieldError> check(JsonNode root) {
        List<FieldError> errors = new ArrayList<>();
        walk(root, "", errors);
        return errors;
    }

    private static void walk(JsonNode node, String path, List<FieldError> errors) {
        if (errors.size() >= MAX_ERRORS) {
            return;
        }
        if (node.isTextual()) {
            String problem = problem(node.textValue());
            if (problem != null) {
                errors.add(new FieldError(path.isEmpty() ? "body" : path, problem));
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), path + "[" + i + "]", errors);
            }
        } else if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String name = field.getKey();
                String fieldPath = path.isEmpty() ? name : path + "." + name;
                String problem = problem(name);
                if (problem != null) {
                    errors.add(new FieldError(path.isEmpty() ? "body" : path, "a field name " + problem));
                } else {
                    walk(field.getValue(), fieldPath, errors);
                }
            }
        }
    }

    /** Why {@code text} is refused, or null. */
    static String problem(String text) {
        if (text.length() > MAX_TEXT_CHARS) {
            return "is longer than " + MAX_TEXT_CHARS + " characters";
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
                return "contains the control character U+" + String.format(Locale.ROOT, "%04X", (int) c) + " at position " + i;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "contains an unpaired UTF-16 surrogate at position " + i;
            }
        }
        return null;
    }
}
