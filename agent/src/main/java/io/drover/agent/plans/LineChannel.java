package io.drover.agent.plans;

import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** JSON lines to and from the Body's python3, each line bounded. */
final class LineChannel {
    static final int MAX_LINE = 16 << 20;
    private final InputStream in;
    private final OutputStream out;

    LineChannel(InputStream in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    /** The next line, or null at the end of the stream. */
    String read() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                return line.toString(StandardCharsets.UTF_8);
            }
            if (line.size() >= MAX_LINE) {
                throw new PlanException(PlanErrorCode.GENERIC, "The Body sent a message over " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    void write(String json) throws IOException {
        out.write(json.getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        out.flush();
    }
}
