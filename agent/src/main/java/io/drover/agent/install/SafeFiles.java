package io.drover.agent.install;

import io.drover.agent.disk.DurableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeMap;

/**
 * The installer's file operations: directories with exact modes, files written under a temporary name created
 * with their final mode (a secret is never readable by others, not even briefly) and renamed into place, a link
 * switched by renaming a new link over it, and a package tree copied without following or admitting links that
 * leave it.
 */
final class SafeFiles {
    /** The most entries a package may have (a jlink runtime and the agent's jars are about 1,000). */
    static final int MAX_ENTRIES = 50_000;

    private SafeFiles() {
    }

    /** Creates {@code dir} (and its missing parents 0755) with {@code mode}, or gives an existing one that mode. */
    static void directory(Path dir, String mode) throws InstallFailed {
        Set<PosixFilePermission> perms = PosixFilePermissions.fromString(mode);
        try {
            if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir)) {
                throw new InstallFailed(dir + " is not a directory; move it away and run the command again");
            }
            if (!Files.isDirectory(dir)) {
                Path parent = dir.getParent();
                if (parent != null && !Files.isDirectory(parent)) {
                    directory(parent, "rwxr-xr-x");
                }
                // created at most as open as the mode (the umask only takes bits away), then given the mode exactly
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(perms));
            }
            if (!Files.getPosixFilePermissions(dir).equals(perms)) {
                Files.setPosixFilePermissions(dir, perms);
            }
        } catch (IOException e) {
            throw new InstallFailed("cannot create the directory " + dir + ": " + e);
        }
    }

    /**
     * Writes {@code content} to {@code file} with {@code mode}: a temporary file beside it, created with that mode,
     * written, forced to disk and renamed over it. False (and nothing written) when the file already holds exactly
     * this with this mode.
     */
    static boolean write(Path file, byte[] content, String mode) throws InstallFailed {
        Set<PosixFilePermission> perms = PosixFilePermissions.fromString(mode);
        if (holds(file, content) && modeOf(file).equals(perms)) {
            return false;
        }
        Path temp = null;
        try {
            temp = Files.createTempFile(file.getParent(), "." + file.getFileName() + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(perms));
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.setPosixFilePermissions(temp, perms); // the umask may have taken bits the mode has (never added any)
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        } catch (IOException e) {
            throw new InstallFailed("cannot write " + file + ": " + e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // best effort: the rename already consumed it, or the write failed and the error says so
                }
            }
        }
    }

    /** Whether {@code file} is a regular file (not a link) holding exactly {@code content}. */
    static boolean holds(Path file, byte[] content) {
        try {
            return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) == content.length
                    && Arrays.equals(Files.readAllBytes(file), content);
        } catch (IOException e) {
            return false;
        }
    }

    private static Set<PosixFilePermission> modeOf(Path file) {
        try {
            return Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return Set.of();
        }
    }

    /** Removes a file (a link itself, not what it names); false when there was none. */
    static boolean delete(Path file) throws InstallFailed {
        try {
            return Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new InstallFailed("cannot remove " + file + ": " + e);
        }
    }

    /** Removes a directory tree without following links; false when there was none. */
    static boolean deleteTree(Path dir) throws InstallFailed {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try {
            DurableFiles.deleteTree(dir);
            return true;
        } catch (IOException e) {
            throw new InstallFailed("cannot remove " + dir + ": " + e);
        }
    }

    /**
     * Points the link {@code link} at {@code target} atomically: a new link beside it renamed over it, so that the
     * link always names either the old or the new target. False when it already points there.
     */
    static boolean pointLink(Path link, Path target) throws InstallFailed {
        try {
            if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target)) {
                return false;
            }
            if (Files.exists(link, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(link)) {
                throw new InstallFailed(link + " is not a link; move it away and run the command again");
            }
            Path temp = link.resolveSibling("." + link.getFileName() + ".new");
            Files.deleteIfExists(temp);
            Files.createSymbolicLink(temp, target);
            Files.move(temp, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        } catch (IOException e) {
            throw new InstallFailed("cannot point " + link + " at " + target + ": " + e);
        }
    }

    /** At most {@code max} bytes of a stream; refused when it has more. */
    static byte[] readAtMost(InputStream in, int max, String what) throws InstallFailed {
        try {
            byte[] bytes = in.readNBytes(max + 1);
            if (bytes.length > max) {
                throw new InstallFailed(what + " is larger than " + max + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw new InstallFailed("cannot read " + what + ": " + e.getMessage());
        }
    }

    /**
     * Copies the package tree {@code from} into the new directory {@code to} (created 0700 while it fills, then
     * 0755), owned by whoever runs the copy: directories, regular files with their modes (less group and others'
     * write) and times, and links only when they are relative and stay inside the package. Any other file type is
     * refused.
     */
    static void copyTree(Path from, Path to) throws InstallFailed {
        Path root = from.toAbsolutePath().normalize();
        int[] entries = {0};
        try {
            Files.createDirectory(to, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    count();
                    if (!dir.equals(root)) {
                        Files.createDirectory(to.resolve(root.relativize(dir).toString()));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    count();
                    Path target = to.resolve(root.relativize(file).toString());
                    if (attrs.isSymbolicLink()) {
                        Path link = Files.readSymbolicLink(file);
                        if (link.isAbsolute() || !file.getParent().resolve(link).normalize().startsWith(root)) {
                            throw new Refused("the package holds a link that leaves it: " + root.relativize(file) + " -> " + link);
                        }
                        Files.createSymbolicLink(target, link);
                    } else if (attrs.isRegularFile()) {
                        // Not COPY_ATTRIBUTES: it would also give the copy the owner of the unpacked package (whoever
                        // unpacked it could then change what runs as root). Mode and time only.
                        Files.copy(file, target, LinkOption.NOFOLLOW_LINKS);
                        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
                        perms.removeAll(Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE));
                        Files.setPosixFilePermissions(target, perms);
                        Files.setLastModifiedTime(target, attrs.lastModifiedTime());
                    } else {
                        throw new Refused("the package holds " + root.relativize(file) + ", which is neither a file, a directory nor a link");
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    if (!dir.equals(root)) {
                        Files.setPosixFilePermissions(to.resolve(root.relativize(dir).toString()),
                                PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                    return FileVisitResult.CONTINUE;
                }

                private void count() throws Refused {
                    if (++entries[0] > MAX_ENTRIES) {
                        throw new Refused("the package has more than " + MAX_ENTRIES + " files");
                    }
                }
            });
            Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (Refused e) {
            deleteTree(to);
            throw new InstallFailed(e.getMessage());
        } catch (IOException e) {
            deleteTree(to);
            throw new InstallFailed("cannot copy the package " + from + " to " + to + ": " + e);
        }
    }

    /**
     * Whether two package trees hold the same entries: names, kinds, link targets, sizes, modification times and
     * execute bits (a copy keeps them; another build of the same version differs in times at least).
     */
    static boolean sameTree(Path a, Path b) {
        try {
            return Files.isDirectory(a) && Files.isDirectory(b) && summary(a).equals(summary(b));
        } catch (IOException e) {
            return false;
        }
    }

    private static TreeMap<String, String> summary(Path dir) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        TreeMap<String, String> out = new TreeMap<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                if (out.size() > MAX_ENTRIES) {
                    throw new IOException("too many files");
                }
                out.put(root.relativize(d).toString(), "d");
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String what = attrs.isSymbolicLink() ? "l " + Files.readSymbolicLink(file)
                        : "f " + attrs.size() + " " + attrs.lastModifiedTime().toMillis() + " "
                        + Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS).contains(PosixFilePermission.OWNER_EXECUTE);
                out.put(root.relativize(file).toString(), what);
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }

    /** A package entry the copy refuses (thrown through the file walk). */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null);
        }
    }
}
