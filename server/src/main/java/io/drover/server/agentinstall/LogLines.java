package io.drover.server.agentinstall;

import java.util.ArrayList;
import java.util.List;

/** Output of a host made fit for a step's log: printable, at most a few lines of bounded length. */
public final class LogLines {
    static final int MAX_LINES = 20;
    static final int MAX_LINE = 300;

    private LogLines() {
    }

    /** One line: control characters (NUL, escapes, line breaks) as '?', at most {@code max} characters. */
    public static String clean(String text, int max) {
        StringBuilder b = new StringBuilder();
        text.codePoints().limit(max).forEach(c -> b.appendCodePoint(Character.isISOControl(c)
                || Character.getType(c) == Character.FORMAT || Character.getType(c) == Character.SURROGATE
                || Character.getType(c) == Character.PRIVATE_USE || Character.getType(c) == Character.UNASSIGNED ? '?' : c));
        if (text.codePointCount(0, text.length()) > max) {
            b.append('…');
        }
        return b.toString();
    }

    /** The last lines of an output (where errors are), each cleaned; says how many were left out. */
    static List<String> tail(String output, long droppedBytes) {
        List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        List<String> out = new ArrayList<>();
        if (lines.size() > MAX_LINES) {
            out.add("(" + (lines.size() - MAX_LINES) + " earlier lines left out)");
        }
        lines.subList(Math.max(0, lines.size() - MAX_LINES), lines.size()).forEach(l -> out.add(clean(l, MAX_LINE)));
        if (droppedBytes > 0) {
            out.add("(" + droppedBytes + " more bytes of output left out)");
        }
        return out;
    }
}
