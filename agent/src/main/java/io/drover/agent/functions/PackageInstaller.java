package io.drover.agent.functions;

import io.drover.agent.disk.DurableFiles;
import io.drover.core.archive.ArchiveException;
import io.drover.core.archive.EntryPath;
import io.drover.core.archive.TarReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Extracts a plugin package (.tgz) safely: into a fresh directory beside the target, refusing absolute paths,
 * {@code ..}, links that leave the package, device files and oversize content; then swaps it into place. A
 * refused package leaves the target as it was.
 */
public final class PackageInstaller {
    public static final long MAX_BYTES = 1L << 30;
    public static final int MAX_ENTRIES = 100_000;

    private final long maxBytes;
    private final int maxEntries;

    public PackageInstaller(long maxBytes, int maxEntries) {
        this.maxBytes = maxBytes;
        this.maxEntries = maxEntries;
    }

    /** The file in an installed plugin's directory that holds the sha256 of the package it came from. */
    public static final String MARKER = ".drover-package";

    /** Returns the number of files extracted. */
    public int install(Path archive, Path target) throws IOException {
        return install(archive, target, null);
    }

    /**
     * Installs and, when {@code sha256} is given, records it in the directory's {@link #MARKER} in the same swap, so
     * that a later install of the same package can be recognised and skipped.
     */
    public int install(Path archive, Path target, String sha256) throws IOException {
        Files.createDirectories(target.getParent());
        Path staging = Files.createTempDirectory(target.getParent(), "." + target.getFileName() + ".new-");
        try {
            // a temporary directory is private (0700); a plugin directory is readable by the users its processes run as
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
            int files = extract(archive, staging);
            if (sha256 != null) {
                Files.writeString(staging.resolve(MARKER), sha256 + "\n");
            }
            Path old = target.resolveSibling("." + target.getFileName() + ".old-" + System.nanoTime());
            boolean replacing = Files.exists(target, LinkOption.NOFOLLOW_LINKS);
            if (replacing) {
                Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
            }
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                if (replacing) {
                    Files.move(old, target, StandardCopyOption.ATOMIC_MOVE);
                }
                throw e;
            }
            DurableFiles.deleteTree(old);
            return files;
        } catch (IOException | RuntimeException e) {
            DurableFiles.deleteTree(staging);
            throw e;
        }
    }

    /** The sha256 of the package installed in {@code target}, or empty when none is recorded. */
    public static java.util.Optional<String> installedSha256(Path target) throws IOException {
        Path marker = target.resolve(MARKER);
        if (!Files.isRegularFile(marker, LinkOption.NOFOLLOW_LINKS) || Files.size(marker) > 200) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(Files.readString(marker).strip());
    }

    private int extract(Path archive, Path into) throws IOException {
        long total = 0;
        int entries = 0;
        int files = 0;
        Set<String> regular = new HashSet<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(archive))) {
            TarReader tar = new TarReader(in);
            for (TarReader.Entry entry = tar.next(); entry != null; entry = tar.next()) {
                if (++entries > maxEntries) {
                    throw new ArchiveException("package has more than " + maxEntries + " entries");
                }
                String name = EntryPath.check(entry.name());
                if (name.isEmpty()) {
                    continue;
                }
                Path path = into.resolve(name).normalize();
                if (!path.startsWith(into)) {
                    throw new ArchiveException("entry '" + entry.name() + "' leaves the package");
                }
                requireNoLinkOnTheWay(into, path, entry.name());
                switch (entry.type()) {
                    case '5' -> Files.createDirectories(path);
                    case '0', '\0', '7' -> {
                        total += entry.size();
                        if (total > maxBytes) {
                            throw new ArchiveException("package content is larger than " + maxBytes + " bytes");
                        }
                        Files.createDirectories(path.getParent());
                        // a later entry of the same name replaces the earlier one; never write through it
                        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                            throw new ArchiveException("entry '" + entry.name() + "' is a file and a directory");
                        }
                        Files.deleteIfExists(path);
                        try (OutputStream out = Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                            tar.content().transferTo(out);
                        }
                        setMode(path, entry.mode());
                        regular.add(name);
                        files++;
                    }
                    case '2' -> {
                        EntryPath.linkTarget(name, entry.linkName());
                        requireLeadingDotDotOnly(entry.name(), entry.linkName());
                        Files.createDirectories(path.getParent());
                        Files.createSymbolicLink(path, Path.of(entry.linkName()));
                    }
                    case '1' -> {
                        String source = EntryPath.check(entry.linkName());
                        if (!regular.contains(source)) {
                            throw new ArchiveException("hard link '" + entry.name() + "' points to '" + entry.linkName()
                                    + "', which is not a file of the package");
                        }
                        Files.createDirectories(path.getParent());
                        Files.copy(into.resolve(source), path);
                    }
                    default -> throw new ArchiveException("entry '" + entry.name() + "' is a device, fifo or other special file (type '"
                            + entry.type() + "')");
                }
            }
        } catch (java.util.zip.ZipException | java.io.EOFException e) {
            throw new ArchiveException("not a gzip-compressed tar archive, or a corrupt one: " + e.getMessage());
        }
        return files;
    }

    /**
     * {@code ..} only at the start of a link target: the link's own parents are real directories (no entry is written
     * through a link), so those steps resolve as they read. After a link, {@code ..} would climb from wherever that
     * link points: {@code s -> .} and {@code e -> s/../x} read as {@code x} but reach the target's parent.
     */
    private static void requireLeadingDotDotOnly(String name, String target) {
        boolean descended = false;
        for (String part : target.split("/")) {
            if (part.equals("..")) {
                if (descended) {
                    throw new ArchiveException("link '" + name + "' points to '" + target
                            + "', which climbs with '..' after a name: it may leave the package");
                }
            } else if (!part.isEmpty() && !part.equals(".")) {
                descended = true;
            }
        }
    }

    /** A directory on the way that an earlier entry made a symbolic link would send writes elsewhere. */
    private static void requireNoLinkOnTheWay(Path root, Path path, String name) {
        for (Path p = path.getParent(); p != null && p.startsWith(root) && !p.equals(root); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                throw new ArchiveException("entry '" + name + "' is written through the link '" + root.relativize(p) + "'");
            }
        }
    }

    private static void setMode(Path path, int mode) throws IOException {
        Set<PosixFilePermission> perms = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        if ((mode & 0100) != 0) {
            perms.add(PosixFilePermission.OWNER_EXECUTE);
        }
        if ((mode & 0040) != 0) {
            perms.add(PosixFilePermission.GROUP_READ);
        }
        if ((mode & 0010) != 0) {
            perms.add(PosixFilePermission.GROUP_EXECUTE);
        }
        if ((mode & 0004) != 0) {
            perms.add(PosixFilePermission.OTHERS_READ);
        }
        if ((mode & 0001) != 0) {
            perms.add(PosixFilePermission.OTHERS_EXECUTE);
        }
        Files.setPosixFilePermissions(path, perms);
    }
}
