package io.drover.core.match;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A shell-style glob as Salt uses it for ids and event tags: {@code *} matches any run of characters
 * (slashes included), {@code ?} one character, {@code [abc]} / {@code [!abc]} / {@code [a-z]} a class; an
 * unclosed {@code [} is literal, as in Python's fnmatch.
 * <p>
 * Matched without regular expressions, in at most (glob length × candidate length) steps whatever the glob:
 * globs arrive from API callers and in publishes, and a regex built from {@code *a*a*a…b} backtracks
 * exponentially.
 */
public final class Glob {
    private final String text;
    private final List<Token> tokens;

    private sealed interface Token permits Any, Run, Literal, CharClass {}

    private record Any() implements Token {}

    private record Run() implements Token {}

    private record Literal(char c) implements Token {}

    /** {@code ranges} holds pairs: first, last (a single character is a pair of equals). */
    private record CharClass(char[] ranges, boolean negated) implements Token {
        boolean contains(char c) {
            boolean in = false;
            for (int i = 0; i < ranges.length && !in; i += 2) {
                in = c >= ranges[i] && c <= ranges[i + 1];
            }
            return in != negated;
        }
    }

    private Glob(String text, List<Token> tokens) {
        this.text = text;
        this.tokens = tokens;
    }

    public static Glob compile(String glob) {
        if (glob == null || glob.isEmpty()) {
            throw new IllegalArgumentException("empty glob");
        }
        List<Token> tokens = new ArrayList<>(glob.length());
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i);
            int close = c == '[' ? glob.indexOf(']', i + 2) : -1;
            if (c == '*') {
                if (tokens.isEmpty() || !(tokens.getLast() instanceof Run)) {
                    tokens.add(new Run());
                }
            } else if (c == '?') {
                tokens.add(new Any());
            } else if (close > 0) {
                tokens.add(charClass(glob.substring(i + 1, close)));
                i = close;
            } else {
                tokens.add(new Literal(c));
            }
            i++;
        }
        return new Glob(glob, List.copyOf(tokens));
    }

    private static CharClass charClass(String body) {
        boolean negated = body.startsWith("!") && body.length() > 1;
        String members = negated ? body.substring(1) : body;
        StringBuilder ranges = new StringBuilder();
        for (int i = 0; i < members.length(); i++) {
            char first = members.charAt(i);
            char last = first;
            if (i + 2 < members.length() && members.charAt(i + 1) == '-') {
                last = members.charAt(i + 2);
                i += 2;
            }
            ranges.append(first).append(last);
        }
        return new CharClass(ranges.toString().toCharArray(), negated);
    }

    /**
     * Greedy matching that backtracks only to the last {@code *}: a later star can always absorb what an
     * earlier one would have, so earlier choices never need revisiting.
     */
    public boolean matches(String candidate) {
        if (candidate == null) {
            return false;
        }
        int t = 0;
        int c = 0;
        int starToken = -1;
        int starCandidate = 0;
        while (c < candidate.length()) {
            Token token = t < tokens.size() ? tokens.get(t) : null;
            if (token instanceof Run) {
                starToken = t++;
                starCandidate = c;
            } else if (token != null && matchesOne(token, candidate.charAt(c))) {
                t++;
                c++;
            } else if (starToken >= 0) {
                t = starToken + 1;
                c = ++starCandidate;
            } else {
                return false;
            }
        }
        while (t < tokens.size() && tokens.get(t) instanceof Run) {
            t++;
        }
        return t == tokens.size();
    }

    /**
     * Whether some string that starts with {@code prefix} matches: what a stream filtered by this glob may want of
     * tags under that prefix. Follows every position the glob can be in after the prefix (at most glob length of
     * them at each of the prefix's characters); a position still open can always be completed.
     */
    public boolean mayMatchStartingWith(String prefix) {
        BitSet states = new BitSet(tokens.size() + 1);
        states.set(0);
        closeOverRuns(states);
        for (int c = 0; c < prefix.length() && !states.isEmpty(); c++) {
            BitSet next = new BitSet(tokens.size() + 1);
            for (int t = states.nextSetBit(0); t >= 0 && t < tokens.size(); t = states.nextSetBit(t + 1)) {
                Token token = tokens.get(t);
                if (token instanceof Run) {
                    next.set(t);
                } else if (matchesOne(token, prefix.charAt(c))) {
                    next.set(t + 1);
                }
            }
            closeOverRuns(next);
            states = next;
        }
        return !states.isEmpty();
    }

    /** A {@code *} may match nothing: whoever is at one is also just past it. */
    private void closeOverRuns(BitSet states) {
        for (int t = states.nextSetBit(0); t >= 0 && t < tokens.size(); t = states.nextSetBit(t + 1)) {
            if (tokens.get(t) instanceof Run) {
                states.set(t + 1);
            }
        }
    }

    private static boolean matchesOne(Token token, char c) {
        return switch (token) {
            case Any ignored -> true;
            case Literal literal -> literal.c() == c;
            case CharClass charClass -> charClass.contains(c);
            case Run ignored -> false;
        };
    }

    @Override
    public String toString() {
        return text;
    }
}
