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

    /** A table column: header and how to read the cell from a row (a model record). */
    public record Column<T>(String header, Function<? super T, String> cell) {
        /** A column showing one field of the row as {@link #text(Object)} renders it. */
        public static <T> Column<T> of(String header, Function<? super T, ?> field) {
            return new Column<>(header, row -> text(field.apply(row)));
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

    /** Prints the value (a model record, or a list or page of them) as JSON/YAML, or as a table of {@code rows}. */
    public <T> void print(Object value, Iterable<? extends T> rows, List<Column<T>> columns) {
        switch (format) {
            case json -> out.println(tree(value).toPrettyString());
            case yaml -> out.print(yaml(tree(value)));
            case table -> out.print(table(rows, columns));
        }
        out.flush();
    }

    /** Prints a single object: JSON/YAML, or a one-row table with these columns. */
    public <T> void printRow(T value, List<Column<T>> columns) {
        print(value, List.of(value), columns);
    }

    /** Prints a single object: JSON/YAML, or "key: value" lines for people. */
    public void printObject(Object value) {
        switch (format) {
            case json -> out.println(tree(value).toPrettyString());
            case yaml, table -> out.print(yaml(tree(value)));
        }
        out.flush();
    }

    /** A value as the server sends it: a model record written with the wire's {@link Json} mapping. */
    static JsonNode tree(Object value) {
        if (value == null) {
            return com.fasterxml.jackson.databind.node.NullNode.getInstance();
        }
        return value instanceof JsonNode node ? node : Json.json().valueToTree(value);
    }

    /** A value as one line of JSON, as the wire has it (one agent's state, a return, a path of node ids). */
    static String oneLine(Object value) {
        try {
            return Json.json().writeValueAsString(value);
        } catch (IOException e) {
            throw new CliException("cannot encode " + value + ": " + e.getMessage());
        }
    }

    /** The first 12 characters of a sha256, as a table shows it. */
    static String shortHash(String sha256) {
        return sha256 == null ? "" : sha256.substring(0, Math.min(12, sha256.length()));
    }

    public static <T> String table(Iterable<? extends T> rows, List<Column<T>> columns) {
        List<String[]> cells = new ArrayList<>();
        String[] header = columns.stream().map(Column::header).toArray(String[]::new);
        cells.add(header);
        for (T row : rows) {
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
        text.codePoints().forEach(c -> b.appendCodePoint(movesTheTerminal(c) ? '?' : c));
        return b.toString();
    }

    /** A control or format character (escapes, line breaks, bidirectional marks): what no stored text may print. */
    static boolean movesTheTerminal(int c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }

    /** A cell: a value as it reads on the wire (times ISO-8601, lists comma-separated, maps as key=value), "-" for none. */
    public static String text(Object value) {
        return text(value == null ? null : tree(value));
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
