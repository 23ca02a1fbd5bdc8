package io.drover.agent.disk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** The agent's writes that must survive {@code kill -9}, and removing a directory tree without following links. */
public final class DurableFiles {
    private DurableFiles() {
    }

    /** Writes to a temporary name beside the file, forces it to disk and renames it over the file. */
    public static void write(Path file, byte[] content) {
        Path temp = file.resolveSibling(file.getFileName() + ".part");
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(ByteBuffer.wrap(content));
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + temp, e);
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename " + temp, e);
        }
    }

    /** Removes a directory and everything under it (links themselves, not what they point at); nothing when absent. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
