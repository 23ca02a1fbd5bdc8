package io.drover.core.plans;

import io.drover.model.plans.PlanJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Application platform's parameter DSL: the seed's "format string" (String.Format style) turning a call's
 * arguments into a command line for {@code /bin/sh}.
 *
 * <p>{@code app(commandline, *args, input=None, **kwargs)}: {@code commandline} is shell text written by the plan's
 * author. When the call has other arguments, {@code {0}}, {@code {1}}… in it stand for the positional ones after it and
 * {@code {name}} for the keyword ones; {@code {{} and {@code }}} are literal braces. Values never enter the shell text:
 * each becomes a positional parameter of the shell ({@code sh -c TEXT sh WORD…}) and its placeholder a reference
 * {@code "${N}"} to it (strings as they are, numbers and booleans as text, null as an empty word, lists and
 * dictionaries as JSON). The shell expands a parameter without reading its value as syntax, wherever the author put
 * the placeholder (double quotes, {@code $(…)}, backquotes, a here-document). A placeholder inside single quotes
 * (where it would be literal text) or right after a backslash is refused. Arguments no placeholder names are appended
 * in order, positional ones as words and keyword ones as {@code --name=value}: none is dropped. A call with no other
 * argument takes {@code commandline} as it is (as the reference agent does), braces and all.
 */
public final class CommandLineFormat {
    private CommandLineFormat() {
    }

    /** Shell text and the words its {@code ${N}} references stand for ({@code words[N-1]}). */
    public record CommandLine(String text, List<String> words) {
        public CommandLine {
            words = List.copyOf(words);
        }
    }

    public static CommandLine format(String commandline, List<?> positional, Map<String, ?> keywords) {
        if (positional.isEmpty() && keywords.isEmpty()) {
            return new CommandLine(commandline, List.of());
        }
        ShellText line = new ShellText();
        List<String> words = new ArrayList<>();
        Map<Integer, Integer> positionWords = new HashMap<>();
        Map<String, Integer> nameWords = new HashMap<>();
        int i = 0;
        while (i < commandline.length()) {
            char c = commandline.charAt(i);
            if (c == '}') {
                if (i + 1 < commandline.length() && commandline.charAt(i + 1) == '}') {
                    line.append('}');
                    i += 2;
                    continue;
                }
                throw wrong("a single '}' at character " + (i + 1) + " (write }} for a brace)");
            }
            if (c != '{') {
                line.append(c);
                i++;
                continue;
            }
            if (i + 1 < commandline.length() && commandline.charAt(i + 1) == '{') {
                line.append('{');
                i += 2;
                continue;
            }
            int end = commandline.indexOf('}', i);
            if (end < 0) {
                throw wrong("a '{' at character " + (i + 1) + " is never closed (write {{ for a brace)");
            }
            String name = commandline.substring(i + 1, end);
            int word;
            if (name.matches("\\d{1,9}")) {
                int index = Integer.parseInt(name);
                if (index >= positional.size()) {
                    throw wrong("{" + name + "} names positional argument " + index + ", but the call has "
                            + positional.size() + " after the command line");
                }
                word = positionWords.computeIfAbsent(index, k -> add(words, word(positional.get(k))));
            } else if (name.matches("[A-Za-z_][A-Za-z0-9_]{0,63}")) {
                if (!keywords.containsKey(name)) {
                    throw wrong("{" + name + "} names the keyword argument " + name + ", which the call does not give"
                            + " (write {{ and }} for braces, e.g. ${{HOME}})");
                }
                word = nameWords.computeIfAbsent(name, k -> add(words, word(keywords.get(k))));
            } else {
                throw wrong("{" + PlanValidator.brief(name) + "} is neither {N} nor {name} (write {{ and }} for braces)");
            }
            line.reference(word, "{" + name + "} at character " + (i + 1));
            i = end + 1;
        }
        if (line.comment && (positionWords.size() < positional.size() || !nameWords.keySet().containsAll(keywords.keySet()))) {
            throw wrong("the command line ends in a # comment, which would swallow the arguments appended after it"
                    + " (name them with placeholders before the comment)");
        }
        for (int index = 0; index < positional.size(); index++) {
            if (!positionWords.containsKey(index)) {
                line.append(' ');
                line.reference(add(words, word(positional.get(index))), "positional argument " + index + ", appended,");
            }
        }
        for (Map.Entry<String, ?> keyword : keywords.entrySet()) {
            if (!nameWords.containsKey(keyword.getKey())) {
                line.append(' ');
                line.reference(add(words, "--" + keyword.getKey() + "=" + word(keyword.getValue())),
                        "keyword argument " + keyword.getKey() + ", appended,");
            }
        }
        return new CommandLine(line.text.toString(), words);
    }

    /** Adds a word; its parameter number. */
    private static int add(List<String> words, String word) {
        words.add(word);
        return words.size();
    }

    /**
     * The author's shell text as written, with enough of the shell's quoting followed to place a reference: bare it is
     * quoted ({@code "${N}"}), inside double quotes it is bare ({@code ${N}}, still one unsplit word), inside single
     * quotes or after a backslash it would not be expanded and is refused. Getting the quoting wrong can only make a
     * value literal text or split it, never shell syntax: the shell never reads an expanded parameter as code.
     */
    private static final class ShellText {
        final StringBuilder text = new StringBuilder();
        boolean single;
        boolean dollarSingle;
        boolean doubled;
        boolean escaped;
        boolean comment;
        /** For each open parenthesis: whether double quotes were open around it ({@code "$(…)"} starts unquoted). */
        final java.util.ArrayDeque<Boolean> parentheses = new java.util.ArrayDeque<>();

        void append(char c) {
            char before = text.isEmpty() ? '\n' : text.charAt(text.length() - 1);
            text.append(c);
            if (comment) {
                comment = c != '\n';
            } else if (single) {
                if (dollarSingle && c == '\\' && !escaped) {
                    escaped = true;
                } else {
                    single = c != '\'' || escaped;
                    escaped = false;
                }
            } else if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (doubled) {
                if (c == '(' && before == '$') {
                    parentheses.push(true);
                    doubled = false;
                } else {
                    doubled = c != '"';
                }
            } else if (c == '(') {
                parentheses.push(false);
            } else if (c == ')' && !parentheses.isEmpty()) {
                doubled = parentheses.pop();
            } else if (c == '\'') {
                single = true;
                dollarSingle = before == '$';
            } else if (c == '"') {
                doubled = true;
            } else if (c == '#' && " \t\n;&|()".indexOf(before) >= 0) {
                comment = true;
            }
        }

        void reference(int word, String placeholder) {
            if (single) {
                throw wrong(placeholder + " is inside single quotes, where the shell would not expand it: a placeholder is"
                        + " quoted already, leave the quotes out");
            }
            if (escaped) {
                throw wrong(placeholder + " follows a backslash, which would escape its quoting");
            }
            text.append(doubled ? "${" + word + "}" : "\"${" + word + "}\"");
        }
    }

    /** A value as the text of one word. */
    public static String word(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof String || value instanceof Number || value instanceof Boolean) {
            return String.valueOf(value);
        }
        return PlanJson.write(value);
    }

    /** A word quoted for {@code /bin/sh}. */
    public static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    private static PlanException wrong(String why) {
        return new PlanException(PlanErrorCode.GENERIC, "The Application command line is wrong: " + why);
    }
}
