package io.drover.core.plans;

import io.drover.model.plans.PlanJson;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Application platform's parameter DSL: the seed's "format string" (String.Format style) turning a call's
 * arguments into a command line for {@code /bin/sh}.
 *
 * <p>{@code app(commandline, *args, input=None, **kwargs)}: {@code commandline} is shell text written by the plan's
 * author. When the call has other arguments, {@code {0}}, {@code {1}}… in it stand for the positional ones after it and
 * {@code {name}} for the keyword ones; {@code {{} and {@code }}} are literal braces. Each value goes in as one
 * shell-quoted word (strings as they are, numbers and booleans as text, null as an empty word, lists and
 * dictionaries as JSON), so no value is ever read as shell syntax. Arguments no placeholder names are appended in
 * order, positional ones as words and keyword ones as {@code --name=value}: none is dropped. A call with no other
 * argument takes {@code commandline} as it is (as the reference agent does), braces and all.
 */
public final class CommandLineFormat {
    private CommandLineFormat() {
    }

    public static String format(String commandline, List<?> positional, Map<String, ?> keywords) {
        if (positional.isEmpty() && keywords.isEmpty()) {
            return commandline;
        }
        StringBuilder line = new StringBuilder();
        BitSet usedPositions = new BitSet();
        Set<String> usedNames = new HashSet<>();
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
            if (name.matches("\\d{1,9}")) {
                int index = Integer.parseInt(name);
                if (index >= positional.size()) {
                    throw wrong("{" + name + "} names positional argument " + index + ", but the call has "
                            + positional.size() + " after the command line");
                }
                usedPositions.set(index);
                line.append(quote(word(positional.get(index))));
            } else if (name.matches("[A-Za-z_][A-Za-z0-9_]{0,63}")) {
                if (!keywords.containsKey(name)) {
                    throw wrong("{" + name + "} names the keyword argument " + name + ", which the call does not give"
                            + " (write {{ and }} for braces, e.g. ${{HOME}})");
                }
                usedNames.add(name);
                line.append(quote(word(keywords.get(name))));
            } else {
                throw wrong("{" + PlanValidator.brief(name) + "} is neither {N} nor {name} (write {{ and }} for braces)");
            }
            i = end + 1;
        }
        for (int index = 0; index < positional.size(); index++) {
            if (!usedPositions.get(index)) {
                line.append(' ').append(quote(word(positional.get(index))));
            }
        }
        for (Map.Entry<String, ?> keyword : keywords.entrySet()) {
            if (!usedNames.contains(keyword.getKey())) {
                line.append(' ').append(quote("--" + keyword.getKey() + "=" + word(keyword.getValue())));
            }
        }
        return line.toString();
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
