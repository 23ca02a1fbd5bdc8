package io.drover.dist;

import io.drover.agent.OptionText;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's configuration file: the flat YAML subset {@code name: value}, one a line, {@code #} comments, values
 * plain or quoted ({@code '…'} with {@code ''} for a quote, {@code "…"} with {@code \"} and {@code \\}). Anything else
 * (nesting, lists, anchors, control characters) is refused naming the line: a file that says more than the agent
 * understands must not be half read. Parsed by hand for the same reason as {@link AgentOptions}.
 */
final class AgentConfigFile {
    private AgentConfigFile() {
    }

    /** The file's settings in order: {name, value, line number}. */
    static List<String[]> read(Path file, long maxBytes) throws OptionText.Invalid {
        String text;
        try {
            if (Files.size(file) > maxBytes) {
                throw new OptionText.Invalid("--config " + AgentOptions.show(file.toString()) + " is larger than " + maxBytes + " bytes");
            }
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw new OptionText.Invalid("--config " + AgentOptions.show(file.toString()) + " is not UTF-8 text");
        } catch (IOException e) {
            throw new OptionText.Invalid("--config " + AgentOptions.show(file.toString()) + " cannot be read");
        }
        List<String[]> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
            String at = file + " line " + (i + 1);
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#") || (i == 0 && trimmed.equals("---"))) {
                continue;
            }
            if (Character.isWhitespace(line.charAt(0)) || trimmed.startsWith("-")) {
                throw new OptionText.Invalid(at + ": nested values and lists are not supported; write 'name: value'");
            }
            int colon = line.indexOf(':');
            String name = colon < 0 ? line : line.substring(0, colon);
            if (colon < 0 || !name.matches("[a-z][a-z0-9-]{0,63}")) {
                throw new OptionText.Invalid(at + ": expected 'name: value', not " + AgentOptions.show(trimmed));
            }
            String rest = line.substring(colon + 1);
            if (!rest.isEmpty() && rest.charAt(0) != ' ' && rest.charAt(0) != '\t') {
                throw new OptionText.Invalid(at + ": expected a space after '" + name + ":'");
            }
            out.add(new String[] {name, value(rest.strip(), at), Integer.toString(i + 1)});
        }
        return out;
    }

    private static String value(String raw, String at) throws OptionText.Invalid {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (Character.isISOControl(c) && c != '\t') {
                throw new OptionText.Invalid(at + ": control characters are not allowed");
            }
        }
        if (raw.startsWith("'") || raw.startsWith("\"")) {
            return quoted(raw, at);
        }
        int comment = raw.indexOf(" #");
        String plain = (comment < 0 ? raw : raw.substring(0, comment)).strip();
        if (plain.isEmpty()) {
            throw new OptionText.Invalid(at + ": the value is missing");
        }
        if ("&*!|>{[@`".indexOf(plain.charAt(0)) >= 0) {
            throw new OptionText.Invalid(at + ": quote a value that starts with '" + plain.charAt(0) + "'");
        }
        return plain;
    }

    private static String quoted(String raw, String at) throws OptionText.Invalid {
        char quote = raw.charAt(0);
        StringBuilder out = new StringBuilder(raw.length());
        int i = 1;
        for (; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (quote == '\'' && c == '\'') {
                if (i + 1 < raw.length() && raw.charAt(i + 1) == '\'') {
                    out.append('\'');
                    i++;
                    continue;
                }
                break;
            }
            if (quote == '"' && c == '\\') {
                if (i + 1 >= raw.length() || (raw.charAt(i + 1) != '"' && raw.charAt(i + 1) != '\\')) {
                    throw new OptionText.Invalid(at + ": only \\\" and \\\\ are understood in a \"…\" value");
                }
                out.append(raw.charAt(++i));
                continue;
            }
            if (quote == '"' && c == '"') {
                break;
            }
            out.append(c);
        }
        if (i >= raw.length()) {
            throw new OptionText.Invalid(at + ": the quoted value is not closed");
        }
        String after = raw.substring(i + 1).strip();
        if (!after.isEmpty() && !after.startsWith("#")) {
            throw new OptionText.Invalid(at + ": unexpected text after the quoted value");
        }
        return out.toString();
    }
}
