package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Prints results as an aligned table for people, or as JSON / YAML for scripts. */
public final class Output {
    public enum Format { table, json, yaml }

    /** A table column: header and how to read the cell from a JSON row. */
    public record Column(String header, Function<JsonNode, String> cell) {
        public static Column of(String header, String field) {
            return new Column(header, row -> text(row.get(field)));
        }
    }

    private final Format format;
    private final PrintWriter out;

    public Output(Format format, PrintWriter out) {
        this.format = format;
        this.out = out;
    }

    public Format format() {
        return format;
    }

    /** Prints the value as JSON/YAML, or as a table of {@code rows} with these columns. */
    public void print(JsonNode value, JsonNode rows, List<Column> columns) {
        switch (format) {
            case json -> out.println(value.toPrettyString());
            case yaml -> out.print(yaml(value));
            case table -> out.print(table(rows, columns));
        }
        out.flush();
    }

    /** Prints a single object: JSON/YAML, or a one-row table with these columns. */
    public void printRow(JsonNode value, List<Column> columns) {
        print(value, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode().add(value), columns);
    }

    /** Prints a single object: JSON/YAML, or "key: value" lines for people. */
    public void printObject(JsonNode value) {
        switch (format) {
            case json -> out.println(value.toPrettyString());
            case yaml, table -> out.print(yaml(value));
        }
        out.flush();
    }

    public static String table(JsonNode rows, List<Column> columns) {
        List<String[]> cells = new ArrayList<>();
        String[] header = columns.stream().map(Column::header).toArray(String[]::new);
        cells.add(header);
        for (JsonNode row : rows) {
            cells.add(columns.stream().map(c -> printable(c.cell().apply(row))).toArray(String[]::new));
        }
        int[] widths = new int[columns.size()];
        for (String[] line : cells) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] line : cells) {
            for (int i = 0; i < line.length; i++) {
                sb.append(i == line.length - 1 ? line[i] : String.format("%-" + widths[i] + "s  ", line[i]));
            }
            sb.append(System.lineSeparator());
        }
        if (cells.size() == 1) {
            sb.append("(none)").append(System.lineSeparator());
        }
        return sb.toString();
    }

    /**
     * A value from the server as it may reach a terminal: control and format characters (escapes, line breaks,
     * bidirectional marks) as '?', so that no stored text moves the cursor, recolours or reorders what is shown.
     */
    public static String printable(String text) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            int type = Character.getType(c);
            b.appendCodePoint(type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR ? '?' : c);
        });
        return b.toString();
    }

    public static String text(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return "-";
        }
        if (node.isArray()) {
            List<String> parts = new ArrayList<>();
            node.forEach(n -> parts.add(text(n)));
            return String.join(",", parts);
        }
        if (node.isObject()) {
            List<String> parts = new ArrayList<>();
            node.fields().forEachRemaining(e -> parts.add(e.getKey() + "=" + text(e.getValue())));
            return parts.isEmpty() ? "-" : String.join(" ", parts);
        }
        return node.asText();
    }

    static String yaml(JsonNode value) {
        try {
            return Json.yaml().writeValueAsString(value);
        } catch (IOException e) {
            throw new CliException("cannot render YAML: " + e.getMessage());
        }
    }
}
