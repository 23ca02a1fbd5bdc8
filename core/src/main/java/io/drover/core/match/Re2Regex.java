package io.drover.core.match;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * A regular expression with Go's syntax and RE2's semantics (re2j), as KubeDiag's triggers match alerts and events:
 * {@code [[:digit:]]}, {@code (?P<name>…)}, {@code (?U)} as Go reads them; no backreferences or lookaround. Matching
 * takes time linear in the input, so no expression can stall a thread as a backtracking one can. Compiling can still
 * take memory in proportion to the expanded program, so expressions longer than {@link BoundedRegex#MAX_CHARS}, nested
 * deeper than {@link BoundedRegex#MAX_NESTING} or expanding to more than {@link #MAX_SIZE} instructions (counted
 * repetitions multiply: {@code ((a{1000}){1000}){1000}}) are refused before re2j compiles them.
 */
public final class Re2Regex {
    static final int MAX_SIZE = 10_000;

    private final Pattern pattern;

    private Re2Regex(Pattern pattern) {
        this.pattern = pattern;
    }

    /** {@code what} names the expression in errors, e.g. a document's field. */
    public static Re2Regex compile(String text, String what) {
        if (text.length() > BoundedRegex.MAX_CHARS) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' is longer than " + BoundedRegex.MAX_CHARS
                    + " characters");
        }
        if (BoundedRegex.nesting(text) > BoundedRegex.MAX_NESTING) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' nests groups deeper than "
                    + BoundedRegex.MAX_NESTING + " levels");
        }
        if (size(text) > MAX_SIZE) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' is too large: its repetitions expand to more than "
                    + MAX_SIZE + " steps");
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(text);
        } catch (PatternSyntaxException e) {
            throw new TargetException(what + " '" + TargetExpression.shown(text) + "' is not a regular expression (RE2 syntax): "
                    + e.getMessage());
        } catch (StackOverflowError e) {
            throw tooDeep(text, what);
        }
        try {
            pattern.matcher("").find();
        } catch (StackOverflowError e) {
            throw tooDeep(text, what);
        }
        return new Re2Regex(pattern);
    }

    /**
     * re2j follows a chain of steps that match nothing (an empty group, {@code a?}, {@code ^}) by recursion, one frame
     * a step: {@code ((a?){100}){100}} overflows a thread's stack. Compiling tries the empty input; what overflows on
     * a smaller stack later is read as no match rather than an error in the thread matching it.
     */
    private static TargetException tooDeep(String text, String what) {
        return new TargetException(what + " '" + TargetExpression.shown(text) + "' repeats what can match nothing too often"
                + " to be matched (re2j follows such steps one stack frame each); repeat fewer of them");
    }

    /** Matches anywhere in {@code input}, as Go's {@code regexp.MatchString}; no match when the matcher runs out of stack. */
    public boolean find(String input) {
        try {
            return pattern.matcher(input).find();
        } catch (StackOverflowError e) {
            return false;
        }
    }

    /**
     * An upper bound of the expression's size once counted repetitions are expanded: each atom counts 1, a group the
     * sum of its contents, {@code {n,m}} multiplies the atom before it by its larger bound.
     */
    static long size(String text) {
        java.util.ArrayDeque<long[]> frames = new java.util.ArrayDeque<>(); // {total, last}
        long[] frame = {0, 0};
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == 'Q') {
                int end = text.indexOf("\\E", i + 2);
                int stop = end < 0 ? text.length() : end;
                frame[0] += frame[1] + Math.max(0, stop - i - 3);
                frame[1] = 1;
                i = end < 0 ? text.length() : end + 2;
            } else if (c == '\\') {
                frame[0] += frame[1];
                frame[1] = 1;
                i += 2;
            } else if (c == '[') {
                frame[0] += frame[1];
                frame[1] = 1;
                i = classEnd(text, i);
            } else if (c == '(') {
                frames.push(frame);
                frame = new long[] {0, 0};
                i++;
            } else if (c == ')') {
                long group = Math.max(1, frame[0] + frame[1]); // an empty group still compiles to steps
                frame = frames.isEmpty() ? new long[] {0, 0} : frames.pop();
                frame[0] += frame[1];
                frame[1] = group;
                i++;
            } else if (c == '|') {
                frame[0] += frame[1];
                frame[1] = 0;
                i++;
            } else if (c == '{') {
                int close = text.indexOf('}', i);
                String inside = close < 0 ? "" : text.substring(i + 1, close);
                if (inside.matches("[0-9]{1,9}(,[0-9]{0,9})?")) {
                    long most = 1;
                    for (String bound : inside.split(",")) {
                        if (!bound.isEmpty()) {
                            most = Math.max(most, Long.parseLong(bound));
                        }
                    }
                    frame[1] = Math.min(frame[1] * most, Integer.MAX_VALUE);
                    i = close + 1;
                } else {
                    frame[0] += frame[1];
                    frame[1] = 1;
                    i++;
                }
            } else {
                if (c != '*' && c != '+' && c != '?') {
                    frame[0] += frame[1];
                    frame[1] = 1;
                }
                i++;
            }
            if (frame[0] > MAX_SIZE || frame[1] > MAX_SIZE) {
                return Math.max(frame[0], frame[1]);
            }
        }
        long size = frame[0] + frame[1];
        while (!frames.isEmpty()) {
            long[] outer = frames.pop();
            size += outer[0] + outer[1];
        }
        return size;
    }

    /** The index after the character class that opens at {@code start} (POSIX classes such as [:digit:] inside). */
    private static int classEnd(String text, int start) {
        int i = start + 1;
        if (i < text.length() && text.charAt(i) == '^') {
            i++;
        }
        if (i < text.length() && text.charAt(i) == ']') {
            i++;
        }
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == '[' && i + 1 < text.length() && text.charAt(i + 1) == ':') {
                int end = text.indexOf(":]", i + 2);
                i = end < 0 ? i + 1 : end + 2;
            } else if (c == ']') {
                return i + 1;
            } else {
                i++;
            }
        }
        return text.length();
    }
}
