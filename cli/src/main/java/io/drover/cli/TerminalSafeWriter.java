package io.drover.cli;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;

/**
 * What the CLI prints, made safe for a terminal: control and format characters other than newline and tab (escape
 * sequences, carriage returns, bidirectional marks) become '?'. Much of what the CLI prints was written by hosts (job
 * returns, plan logs, diagnosis results); printed raw, a host could recolour, overwrite or reorder the screen, set the
 * window title, or write the operator's clipboard (OSC 52).
 */
final class TerminalSafeWriter extends FilterWriter {

    TerminalSafeWriter(Writer out) {
        super(out);
    }

    static char safe(char c) {
        return c == '\n' || c == '\t' || !Output.movesTheTerminal(c) ? c : '?';
    }

    @Override
    public void write(int c) throws IOException {
        out.write(safe((char) c));
    }

    @Override
    public void write(char[] buffer, int offset, int length) throws IOException {
        char[] copy = new char[length];
        for (int i = 0; i < length; i++) {
            copy[i] = safe(buffer[offset + i]);
        }
        out.write(copy, 0, length);
    }

    @Override
    public void write(String text, int offset, int length) throws IOException {
        // only the slice asked for is copied, and made safe in place
        char[] copy = new char[length];
        text.getChars(offset, offset + length, copy, 0);
        for (int i = 0; i < length; i++) {
            copy[i] = safe(copy[i]);
        }
        out.write(copy, 0, length);
    }
}
