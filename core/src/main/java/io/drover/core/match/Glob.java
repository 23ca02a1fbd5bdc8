package io.drover.core.match;

import java.util.regex.Pattern;

/**
 * A shell-style glob as Salt uses it for ids and event tags: {@code *} matches any run of characters
 * (slashes included), {@code ?} one character, {@code [abc]} / {@code [!abc]} / {@code [a-z]} a class.
 */
public final class Glob {
    private final String text;
    private final Pattern pattern;

    private Glob(String text, Pattern pattern) {
        this.text = text;
        this.pattern = pattern;
    }

    public static Glob compile(String glob) {
        if (glob == null || glob.isEmpty()) {
            throw new IllegalArgumentException("empty glob");
        }
        StringBuilder regex = new StringBuilder(glob.length() + 8);
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                case '[' -> {
                    int close = glob.indexOf(']', i + 2);
                    if (close < 0) {
                        regex.append("\\[");
                    } else {
                        String body = glob.substring(i + 1, close);
                        boolean negated = body.startsWith("!");
                        if (negated) {
                            body = body.substring(1);
                        }
                        regex.append(negated ? "[^" : "[").append(body.replace("\\", "\\\\").replace("[", "\\[")).append(']');
                        i = close;
                    }
                }
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
            i++;
        }
        return new Glob(glob, Pattern.compile(regex.toString(), Pattern.DOTALL));
    }

    public boolean matches(String candidate) {
        return candidate != null && pattern.matcher(candidate).matches();
    }

    @Override
    public String toString() {
        return text;
    }
}
