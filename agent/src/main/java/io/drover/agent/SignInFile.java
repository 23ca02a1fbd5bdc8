package io.drover.agent;

import io.drover.agent.disk.DurableFiles;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SignInListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes how the agent's sign-in stands to {@code <state>/sign-in.json} whenever that changes (the first outcome of a
 * process always), renamed into place: {@code {"state":"SIGNED_IN","master":"host:4506","detail":"...",
 * "time":"2025-01-01T00:00:00.123Z","version":"0.1.0"}}. The installer reads it to wait for the sign-in and to say
 * why there is none. JSON written by hand: an idle agent keeps every class it loaded.
 */
public final class SignInFile implements SignInListener {
    private static final Logger log = LoggerFactory.getLogger(SignInFile.class);
    public static final String NAME = "sign-in.json";

    private final Path file;
    private final String version;
    private final Clock clock;
    /** The last state, master and detail written; a repeat is not written again. */
    private String last;

    public SignInFile(Path stateDir, String version, Clock clock) {
        this.file = stateDir.resolve(NAME);
        this.version = version;
        this.clock = clock;
    }

    @Override
    public synchronized void onSignIn(Result result, MinionConfig.Master master, String detail) {
        String what = "{\"state\":" + quoted(result.name()) + ",\"master\":" + quoted(master.toString())
                + ",\"detail\":" + quoted(detail);
        if (what.equals(last)) {
            return;
        }
        String json = what + ",\"time\":" + quoted(clock.instant().toString()) + ",\"version\":" + quoted(version) + "}\n";
        try {
            DurableFiles.write(file, json.getBytes(StandardCharsets.UTF_8));
            last = what;
        } catch (RuntimeException e) {
            log.warn("cannot write {}: {}", file, e.getMessage());
        }
    }

    /** A JSON string: quotes, backslashes and every character below U+0020 or a line separator escaped; at most 300. */
    static String quoted(String value) {
        String text = value == null ? "" : value.length() > 300 ? value.substring(0, 300) + "..." : value;
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029 || Character.isSurrogate(c)) {
                String hex = Integer.toHexString(c);
                out.append("\\u").append("0000", hex.length(), 4).append(hex);
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
