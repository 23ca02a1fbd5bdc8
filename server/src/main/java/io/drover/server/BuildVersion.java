package io.drover.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The server's version, as the build wrote it (also when running from classes, where jars have no manifest). */
public final class BuildVersion {
    private static final String CURRENT = read();

    private BuildVersion() {
    }

    public static String current() {
        return CURRENT;
    }

    /** The release this build is (or leads up to): {@code 0.1.0-SNAPSHOT} counts as 0.1.0 for system.drover checks. */
    public static io.drover.core.packages.Version release() {
        io.drover.core.packages.Version v = io.drover.core.packages.Version.parse(CURRENT);
        return io.drover.core.packages.Version.of(v.major(), v.minor(), v.patch());
    }

    private static String read() {
        try (InputStream in = BuildVersion.class.getResourceAsStream("version.txt")) {
            String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return text.isEmpty() || text.startsWith("$") ? "0.0.0-dev" : text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
