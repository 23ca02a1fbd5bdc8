package io.drover.core.testing;

import io.drover.core.archive.TarWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * Agent packages for tests: {@code drover-agent-<version>-linux-<arch>/} with VERSION, ARCH, a {@code bin/drover-agent}
 * script, a library and a link inside the package; or hostile variants built entry by entry.
 */
public final class AgentPackages {
    private AgentPackages() {
    }

    /** What goes into the archive, entry by entry. */
    public interface Entries {
        void write(TarWriter tar) throws IOException;
    }

    /** A well-formed package whose launcher is {@code launcher} (a shell script). */
    public static byte[] of(String version, String arch, String launcher) {
        String top = "drover-agent-" + version + "-linux-" + arch;
        return tgz(tar -> {
            tar.directory(top, 0755);
            tar.file(top + "/VERSION", 0644, (version + "\n").getBytes(StandardCharsets.UTF_8));
            tar.file(top + "/ARCH", 0644, (arch + "\n").getBytes(StandardCharsets.UTF_8));
            tar.directory(top + "/bin", 0755);
            tar.file(top + "/bin/drover-agent", 0755, launcher.getBytes(StandardCharsets.UTF_8));
            tar.directory(top + "/lib", 0755);
            tar.file(top + "/lib/drover-agent-" + version + ".jar", 0644, ("jar of " + version).getBytes(StandardCharsets.UTF_8));
            tar.special(top + "/runtime-lib", '2', "lib");
        });
    }

    /** A well-formed package whose launcher only prints its arguments. */
    public static byte[] of(String version, String arch) {
        return of(version, arch, "#!/bin/sh\necho drover-agent " + version + " \"$@\"\n");
    }

    /** A gzip-compressed tar of exactly these entries. */
    public static byte[] tgz(Entries entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes); TarWriter tar = new TarWriter(gzip)) {
            entries.write(tar);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
