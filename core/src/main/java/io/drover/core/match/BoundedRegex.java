package io.drover.core.match;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A regular expression from a target (pcre, grain_pcre), bounded so that no expression can exhaust the
 * matching thread: expressions longer than {@link #MAX_CHARS} (Pattern.compile takes time quadratic in a long
 * literal) and groups and classes nested deeper than {@link #MAX_NESTING} are refused before
 * {@link Pattern#compile} recurses into them, and a match that reads the input more than {@link #MAX_STEPS}
 * times (catastrophic backtracking such as {@code (a+)+$}) ends as no match.
 */
public final class BoundedRegex {
    static final int MAX_CHARS = 8192;
    static final int MAX_NESTING = 50;
    static final int MAX_STEPS = 1_000_000;

    private final Pattern pattern;

    private BoundedRegex(Pattern pattern) {
        this.pattern = pattern;
    }

    /** {@code what} names the expression in errors, e.g. "pcre target". */
    public static BoundedRegex compile(String text, String what) {
        if (text.length() > MAX_CHARS) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' is longer than " + MAX_CHARS
                    + " characters");
        }
        if (nesting(text) > MAX_NESTING) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' nests groups deeper than "
                    + MAX_NESTING + " levels");
        }
        try {
            return new BoundedRegex(Pattern.compile(text));
        } catch (PatternSyntaxException e) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' is not a regular expression: "
                    + e.getDescription());
        }
    }

    /** Matches anywhere in {@code input}, as Go's {@code regexp.MatchString} (KubeDiag's triggers). */
    public boolean find(String input) {
        try {
            return pattern.matcher(new CountedInput(input)).find();
        } catch (StepsExhausted | StackOverflowError e) {
            return false;
        }
    }

    /** Matches at the start of {@code input}, as Salt's {@code re.match}. */
    boolean lookingAt(String input) {
        try {
            return pattern.matcher(new CountedInput(input)).lookingAt();
        } catch (StepsExhausted e) {
            return false;
        } catch (StackOverflowError e) {
            // java.util.regex recurses once per repetition of some loops ((a|b)* over a long value): the frames
            // are unwound by now, and an expression that cannot be matched does not match.
            return false;
        }
    }

    /** The deepest nesting of groups and character classes, escapes and \Q…\E quotes skipped. */
    static int nesting(String text) {
        int groups = 0;
        int classes = 0;
        int deepest = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == 'Q') {
                int end = text.indexOf("\\E", i + 2);
                i = end < 0 ? text.length() : end + 1;
            } else if (c == '\\') {
                i++;
            } else if (c == '[') {
                classes++;
            } else if (c == ']' && classes > 0) {
                classes--;
            } else if (c == '(' && classes == 0) {
                groups++;
            } else if (c == ')' && classes == 0 && groups > 0) {
                groups--;
            }
            deepest = Math.max(deepest, groups + classes);
        }
        return deepest;
    }

    private static final class StepsExhausted extends RuntimeException {
        StepsExhausted() {
            super(null, null, false, false);
        }
    }

    private static final class CountedInput implements CharSequence {
        private final String text;
        private int steps;

        CountedInput(String text) {
            this.text = text;
        }

        @Override
        public char charAt(int index) {
            if (++steps > MAX_STEPS) {
                throw new StepsExhausted();
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
