package io.drover.core.plans;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Bodies an agent can run without starting python3: one statement, {@code return} or not, that returns a
 * literal, a parameter, or calls one script (whole or one function in it) with literal and parameter arguments,
 * optionally reading one field of its answer:
 * <pre>
 *   return deploy(args.appName).stdout
 *   return runCommand()
 *   putFile("'/tmp/x'", mode='0644')
 *   return args['port']
 * </pre>
 * Anything else (two statements, expressions, {@code api} calls, comprehensions…) is not recognised, and the Body
 * runs in python3 as written. Recognising is all this does; the meaning is Python's, and the runner checks the
 * names against the plan.
 */
public final class SimpleBody {
    /** A value in a Body: a literal, or a plan parameter read as {@code args.x} or {@code args['x']}. */
    public sealed interface Value {
    }

    public record Literal(Object value) implements Value {
    }

    public record Parameter(String name) implements Value {
    }

    /** {@code script(...)} or {@code script.function(...)}, then {@code .field} when given. */
    public record Call(String script, String function, List<Value> positional, Map<String, Value> keywords, String field)
            implements Value {
    }

    /** The statement: its value, and whether the Body returns it (otherwise the plan's result is None). */
    public record Statement(Value value, boolean returns) {
    }

    private final String text;
    private int at;

    private SimpleBody(String text) {
        this.text = text;
    }

    /** The Body's statement when it has this simple form. */
    public static Optional<Statement> parse(String body) {
        List<String> lines = new ArrayList<>();
        for (String line : body.split("\n", -1)) {
            String stripped = line.strip();
            if (!stripped.isEmpty() && !stripped.startsWith("#")) {
                lines.add(line);
            }
        }
        if (lines.size() > 1 || (lines.size() == 1 && Character.isWhitespace(lines.get(0).charAt(0)))) {
            return Optional.empty();
        }
        if (lines.isEmpty()) {
            return Optional.of(new Statement(new Literal(null), false));
        }
        try {
            return Optional.ofNullable(new SimpleBody(lines.get(0).stripTrailing()).statement());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private Statement statement() {
        boolean returns = false;
        if (keyword("return")) {
            returns = true;
            skipBlanks();
            if (at == text.length()) {
                return new Statement(new Literal(null), true);
            }
        }
        Value value = value(true);
        skipBlanks();
        if (at != text.length()) {
            return null;
        }
        return new Statement(value, returns);
    }

    private Value value(boolean callAllowed) {
        skipBlanks();
        if (at >= text.length()) {
            throw new IllegalArgumentException("end");
        }
        char c = text.charAt(at);
        if (c == '\'' || c == '"') {
            return new Literal(string());
        }
        if (Character.isDigit(c) || c == '-') {
            return new Literal(number());
        }
        String name = identifier();
        switch (name) {
            case "True" -> {
                return new Literal(Boolean.TRUE);
            }
            case "False" -> {
                return new Literal(Boolean.FALSE);
            }
            case "None" -> {
                return new Literal(null);
            }
            case "args" -> {
                return parameter();
            }
            case "api", "and", "or", "not", "lambda", "if", "for", "in", "is", "await", "yield", "print", "exec", "eval" ->
                    throw new IllegalArgumentException(name);
            default -> {
                if (!callAllowed) {
                    throw new IllegalArgumentException("call inside a call");
                }
                return call(name);
            }
        }
    }

    private Value parameter() {
        if (peek('.')) {
            at++;
            return new Parameter(identifier());
        }
        if (peek('[')) {
            at++;
            skipBlanks();
            String name = string();
            skipBlanks();
            expect(']');
            return new Parameter(name);
        }
        throw new IllegalArgumentException("args alone");
    }

    private Value call(String script) {
        String function = null;
        if (peek('.')) {
            at++;
            function = identifier();
        }
        expect('(');
        List<Value> positional = new ArrayList<>();
        Map<String, Value> keywords = new LinkedHashMap<>();
        skipBlanks();
        if (!peek(')')) {
            while (true) {
                skipBlanks();
                int mark = at;
                String keyword = null;
                if (at < text.length() && Character.isJavaIdentifierStart(text.charAt(at))) {
                    String word = identifier();
                    skipBlanks();
                    if (peek('=') && !(at + 1 < text.length() && text.charAt(at + 1) == '=')) {
                        at++;
                        keyword = word;
                    } else {
                        at = mark;
                    }
                }
                Value argument = value(false);
                if (keyword != null) {
                    if (keywords.put(keyword, argument) != null) {
                        throw new IllegalArgumentException("repeated keyword");
                    }
                } else if (!keywords.isEmpty()) {
                    throw new IllegalArgumentException("positional after keyword");
                } else {
                    positional.add(argument);
                }
                skipBlanks();
                if (peek(',')) {
                    at++;
                    skipBlanks();
                    if (peek(')')) {
                        break;
                    }
                    continue;
                }
                break;
            }
        }
        expect(')');
        String field = null;
        if (peek('.')) {
            at++;
            field = identifier();
            if (!List.of("stdout", "stderr", "exitCode").contains(field)) {
                throw new IllegalArgumentException(field);
            }
        }
        return new Call(script, function, positional, keywords, field);
    }

    private boolean keyword(String word) {
        if (text.startsWith(word, at) && (at + word.length() == text.length()
                || !Character.isJavaIdentifierPart(text.charAt(at + word.length())))) {
            at += word.length();
            return true;
        }
        return false;
    }

    private String identifier() {
        int start = at;
        if (at >= text.length() || !(Character.isLetter(text.charAt(at)) || text.charAt(at) == '_') || text.charAt(at) > 127) {
            throw new IllegalArgumentException("identifier");
        }
        while (at < text.length() && text.charAt(at) < 128 && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
            at++;
        }
        return text.substring(start, at);
    }

    /** A plain quoted string: escapes, prefixes and triple quotes are left to Python. */
    private String string() {
        char quote = text.charAt(at);
        if (quote != '\'' && quote != '"') {
            throw new IllegalArgumentException("string");
        }
        int end = text.indexOf(quote, at + 1);
        if (end < 0) {
            throw new IllegalArgumentException("unterminated");
        }
        String value = text.substring(at + 1, end);
        if (value.indexOf('\\') >= 0 || (end == at + 1 && end + 1 < text.length() && text.charAt(end + 1) == quote)) {
            throw new IllegalArgumentException("escapes or triple quotes");
        }
        at = end + 1;
        return value;
    }

    /** An integer that fits a long (no floats, no underscores, no leading zeros). */
    private Long number() {
        int start = at;
        if (text.charAt(at) == '-') {
            at++;
        }
        int digits = at;
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        String number = text.substring(start, at);
        if (at == digits || at - digits > 18 || (at - digits > 1 && text.charAt(digits) == '0')
                || (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '.' || text.charAt(at) == '_'))) {
            throw new IllegalArgumentException("number");
        }
        return Long.parseLong(number);
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        skipBlanks();
        if (!peek(c)) {
            throw new IllegalArgumentException("expected " + c);
        }
        at++;
    }

    private void skipBlanks() {
        while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
            at++;
        }
    }
}
