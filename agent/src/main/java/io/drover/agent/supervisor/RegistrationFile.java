package io.drover.agent.supervisor;

import io.drover.model.agentapi.ProcessSpec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON of a process registration ({@code <state>/procs/<name>.json}): {@code {"spec": {"name": …, "setup_path":
 * …, …, "delegate": false}, "started": true}}, snake_case and nulls left out, as {@code Json.json()} wrote it before.
 * Written and read by hand: the supervisor of a deployed plugin would otherwise keep Jackson's databind (some 1,000
 * classes, ~9 MiB of metaspace and symbols) loaded in the agent for its whole life. Strict: an unknown key, a value
 * of the wrong kind or anything after the document is refused.
 */
final class RegistrationFile {
    private static final String[] SPEC_KEYS = {"name", "setup_path", "pid_path", "user", "start_cmd", "stop_cmd",
            "restart_cmd", "reload_cmd", "version_cmd", "health_cmd"};

    private RegistrationFile() {
    }

    static byte[] write(Supervisor.Registration registration) {
        ProcessSpec s = registration.spec();
        String[] values = {s.name(), s.setupPath(), s.pidPath(), s.user(), s.startCmd(), s.stopCmd(), s.restartCmd(),
                s.reloadCmd(), s.versionCmd(), s.healthCmd()};
        StringBuilder out = new StringBuilder(256).append("{\"spec\":{");
        for (int i = 0; i < SPEC_KEYS.length; i++) {
            if (values[i] != null) {
                quote(out, SPEC_KEYS[i]).append(':');
                quote(out, values[i]).append(',');
            }
        }
        out.append("\"delegate\":").append(s.delegate()).append("},\"started\":").append(registration.started()).append('}');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The registration in {@code json}; {@link IllegalArgumentException} when it is not one. */
    static Supervisor.Registration read(String json) {
        Reader reader = new Reader(json);
        Map<String, Object> document = reader.object(0);
        reader.end();
        Object spec = document.remove("spec");
        Object started = document.remove("started");
        if (!document.isEmpty()) {
            throw new IllegalArgumentException("unknown key '" + document.keySet().iterator().next() + "'");
        }
        if (!(spec instanceof Map<?, ?> fields)) {
            throw new IllegalArgumentException("no spec object");
        }
        if (started != null && !(started instanceof Boolean)) {
            throw new IllegalArgumentException("started is not true or false");
        }
        return new Supervisor.Registration(spec(new LinkedHashMap<>(fields)), Boolean.TRUE.equals(started));
    }

    private static ProcessSpec spec(Map<?, ?> fields) {
        String[] values = new String[SPEC_KEYS.length];
        for (int i = 0; i < SPEC_KEYS.length; i++) {
            Object value = fields.remove(SPEC_KEYS[i]);
            if (value != null && !(value instanceof String)) {
                throw new IllegalArgumentException(SPEC_KEYS[i] + " is not a string");
            }
            values[i] = (String) value;
        }
        Object delegate = fields.remove("delegate");
        if (delegate != null && !(delegate instanceof Boolean)) {
            throw new IllegalArgumentException("delegate is not true or false");
        }
        if (!fields.isEmpty()) {
            throw new IllegalArgumentException("unknown key 'spec." + fields.keySet().iterator().next() + "'");
        }
        return new ProcessSpec(values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7],
                values[8], values[9], Boolean.TRUE.equals(delegate));
    }

    private static StringBuilder quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /** Objects of strings, booleans, nulls and (one level down) objects; what a registration holds, nothing else. */
    private static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        Map<String, Object> object(int depth) {
            Map<String, Object> map = new LinkedHashMap<>();
            expect('{');
            if (peek() == '}') {
                at++;
                return map;
            }
            do {
                String key = string();
                expect(':');
                Object value = value(depth);
                if (map.put(key, value) != null) {
                    throw new IllegalArgumentException("key '" + key + "' twice");
                }
            } while (next(',', '}') == ',');
            return map;
        }

        private Object value(int depth) {
            char c = peek();
            if (c == '"') {
                return string();
            }
            if (c == '{' && depth == 0) {
                return object(1);
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (text.startsWith(word, at)) {
                    at += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            throw error("a string, true, false or null");
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c < 0x20) {
                    throw error("no control character in a string");
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (at >= text.length()) {
                    break;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            throw error("four hex digits");
                        }
                        try {
                            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("four hex digits");
                        }
                        at += 4;
                    }
                    default -> throw error("a valid escape");
                }
            }
            throw new IllegalArgumentException("unterminated string");
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("'" + c + "'");
            }
            at++;
        }

        private char next(char a, char b) {
            char c = peek();
            if (c != a && c != b) {
                throw error("'" + a + "' or '" + b + "'");
            }
            at++;
            return c;
        }

        private char peek() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
            return at < text.length() ? text.charAt(at) : 0;
        }

        void end() {
            if (peek() != 0) {
                throw error("the end of the document");
            }
        }

        private IllegalArgumentException error(String expected) {
            return new IllegalArgumentException("expected " + expected + " at offset " + at);
        }
    }
}
