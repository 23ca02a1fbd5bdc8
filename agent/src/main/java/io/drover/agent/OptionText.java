package io.drover.agent;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Command-line values as the agent's commands ({@code drover agent}, {@code drover-agent install …}) read and show
 * them: whole numbers of ASCII digits only, and any value quoted safely in a one-line message.
 */
public final class OptionText {
    private OptionText() {
    }

    /** A command line the agent's commands refuse: the message says which option and why. */
    public static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        public Invalid(String message) {
            super(message, null, false, false);
        }
    }

    /** The value of option {@code name} as a whole number from min to max. */
    public static long number(String name, String value, long min, long max) throws Invalid {
        Long n = wholeNumber(value);
        if (n == null) {
            throw new Invalid(name + " " + show(value, 200) + " is not a whole number");
        }
        if (n < min || n > max) {
            throw new Invalid(name + " must be " + min + " to " + max + ", not " + value);
        }
        return n;
    }

    /** The value of option {@code name} as a path: not empty, and one the file system can name. */
    public static Path path(String name, String value) throws Invalid {
        if (value.isEmpty()) {
            throw new Invalid(name + " needs a path, not ''");
        }
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new Invalid(name + " " + show(value, 200) + " is not a valid path");
        }
    }

    /** The value as a whole number (ASCII digits, optionally negative, at most 19 of them), or null when it is not one. */
    public static Long wholeNumber(String value) {
        int start = value.startsWith("-") ? 1 : 0;
        boolean digits = value.length() > start && value.length() - start <= 19;
        for (int i = start; digits && i < value.length(); i++) {
            char c = value.charAt(i);
            digits = c >= '0' && c <= '9';
        }
        try {
            return digits ? Long.parseLong(value) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * A value quoted for a one-line message: control characters, line and paragraph separators, invisible format
     * characters (bidirectional overrides, zero-width ones), unassigned and private-use code points and lone
     * surrogates as {@code \\uXXXX}, a backslash doubled; at most {@code max} characters; null as {@code (none)}.
     */
    public static String show(String value, int max) {
        if (value == null) {
            return "(none)";
        }
        StringBuilder out = new StringBuilder(Math.min(value.length(), max) + 8).append('\'');
        int shown = 0;
        for (int i = 0; i < value.length(); i++) {
            if (shown++ == max) {
                out.append("...");
                break;
            }
            char c = value.charAt(i);
            int type = Character.getType(c);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1));
            if (pair) {
                out.append(c).append(value.charAt(++i));
            } else if (c == '\\') {
                out.append("\\\\");
            } else if (Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR || type == Character.SURROGATE || type == Character.UNASSIGNED
                    || type == Character.PRIVATE_USE) {
                String hex = Integer.toHexString(c);
                out.append("\\u").append("0000", hex.length(), 4).append(hex);
            } else {
                out.append(c);
            }
        }
        return out.append('\'').toString();
    }
}
