package io.drover.core.agents;

import io.drover.core.archive.ArchiveException;
import io.drover.core.archive.EntryPath;
import io.drover.core.archive.TarReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Checks an agent package (a gzip-compressed tar) before the server hands it to hosts, which unpack it as root. Every
 * entry is under one directory {@code drover-agent-<version>-linux-<arch>/}; names are printable ASCII, relative,
 * without {@code ..} and given once; entries are files, directories or symbolic links that stay inside that directory
 * (no hard links, devices or FIFOs, nothing setuid or setgid); the one-line files {@code VERSION} and {@code ARCH}
 * say what the directory's name says; {@code bin/drover-agent} is an executable file. Sizes are bounded before
 * anything is decompressed past them, so a small upload cannot make the server inflate gigabytes.
 */
public final class AgentPackageArchive {
    /** Entries at most: a runtime and the agent's libraries hold a few thousand. */
    public static final int MAX_ENTRIES = 100_000;
    /** Bytes of all files together once unpacked. */
    public static final long MAX_UNPACKED_BYTES = 4L << 30;
    private static final int MAX_LINE_FILE_BYTES = 256;
    private static final String LAUNCHER = "bin/drover-agent";

    private AgentPackageArchive() {
    }

    /** Reads the whole package and returns its name, or refuses it saying why. */
    public static AgentPackageName check(InputStream tgz) {
        try (InputStream in = new GZIPInputStream(tgz, 65536)) {
            return check(new TarReader(in));
        } catch (ZipException | java.io.EOFException e) {
            throw new AgentPackageException("not a gzip-compressed tar archive, or a truncated one: " + e.getMessage());
        } catch (ArchiveException e) {
            throw new AgentPackageException("not a valid tar archive: " + e.getMessage());
        } catch (IOException e) {
            throw new AgentPackageException("cannot read the package: " + e.getMessage());
        }
    }

    private static AgentPackageName check(TarReader tar) throws IOException {
        String top = null;
        AgentPackageName named = null;
        String version = null;
        String arch = null;
        boolean launcher = false;
        Set<String> seen = new HashSet<>();
        long unpacked = 0;
        int entries = 0;
        for (TarReader.Entry entry = tar.next(); entry != null; entry = tar.next()) {
            if (++entries > MAX_ENTRIES) {
                throw new AgentPackageException("holds more than " + MAX_ENTRIES + " entries");
            }
            String raw = entry.name();
            if (raw.chars().anyMatch(c -> c < 0x20 || c > 0x7e || c == '\\')) {
                throw new AgentPackageException("entry " + AgentPackageName.shown(raw)
                        + " has a name with control or non-ASCII characters or a backslash");
            }
            String name = entryPath(() -> EntryPath.check(raw));
            if (name.isEmpty()) {
                continue; // "./"
            }
            if (!seen.add(name)) {
                throw new AgentPackageException("entry '" + name + "' is in the archive twice");
            }
            int slash = name.indexOf('/');
            String first = slash < 0 ? name : name.substring(0, slash);
            if (top == null) {
                top = first;
                named = AgentPackageName.ofDirectory(top);
            } else if (!first.equals(top)) {
                throw new AgentPackageException("entry '" + name + "' is not under " + top + "/: a package unpacks to one directory");
            }
            String inner = slash < 0 ? "" : name.substring(slash + 1);
            if ((entry.mode() & 06000) != 0) {
                throw new AgentPackageException("entry '" + name + "' is setuid or setgid");
            }
            switch (entry.type()) {
                case '5' -> {
                }
                case '2' -> {
                    if (inner.isEmpty()) {
                        throw new AgentPackageException("'" + name + "' is a link; a package unpacks to a directory");
                    }
                    String link = entry.linkName();
                    String target = entryPath(() -> EntryPath.linkTarget(name, link));
                    if (!target.startsWith(top + "/")) {
                        throw new AgentPackageException("link '" + name + "' points to '" + entry.linkName() + "' outside " + top + "/");
                    }
                    if (inner.equals(LAUNCHER) || inner.equals("VERSION") || inner.equals("ARCH")) {
                        throw new AgentPackageException("'" + name + "' is a link; it must be a file");
                    }
                }
                case '0', '\0', '7' -> {
                    if (inner.isEmpty()) {
                        throw new AgentPackageException("'" + name + "' is a file; a package unpacks to a directory");
                    }
                    unpacked += entry.size();
                    if (unpacked > MAX_UNPACKED_BYTES) {
                        throw new AgentPackageException("unpacks to more than " + MAX_UNPACKED_BYTES + " bytes");
                    }
                    switch (inner) {
                        case "VERSION" -> version = line(tar, entry, name);
                        case "ARCH" -> arch = line(tar, entry, name);
                        case LAUNCHER -> {
                            if ((entry.mode() & 0100) == 0) {
                                throw new AgentPackageException("'" + name + "' is not executable");
                            }
                            launcher = true;
                        }
                        default -> {
                        }
                    }
                }
                case '1' -> throw new AgentPackageException("entry '" + name + "' is a hard link; packages hold files, directories and symbolic links");
                default -> throw new AgentPackageException("entry '" + name + "' is a device, FIFO or other special file (tar type '"
                        + entry.type() + "')");
            }
        }
        if (top == null) {
            throw new AgentPackageException("the archive is empty");
        }
        if (version == null || arch == null || !launcher) {
            throw new AgentPackageException("is not an agent package: " + top + "/ has no "
                    + (version == null ? "VERSION file" : arch == null ? "ARCH file" : LAUNCHER));
        }
        if (!version.equals(named.version())) {
            throw new AgentPackageException(top + "/VERSION says " + AgentPackageName.shown(version)
                    + " but the package is named for version " + named.version());
        }
        if (!arch.equals(named.arch())) {
            throw new AgentPackageException(top + "/ARCH says " + AgentPackageName.shown(arch)
                    + " but the package is named for " + named.arch());
        }
        return named;
    }

    /** A checked entry path; its refusal is the package's. */
    private static String entryPath(java.util.function.Supplier<String> check) {
        try {
            return check.get();
        } catch (ArchiveException e) {
            throw new AgentPackageException(e.getMessage());
        }
    }

    /** The first line of a small file, stripped. */
    private static String line(TarReader tar, TarReader.Entry entry, String name) throws IOException {
        if (entry.size() > MAX_LINE_FILE_BYTES) {
            throw new AgentPackageException("'" + name + "' is larger than " + MAX_LINE_FILE_BYTES + " bytes; it holds one line");
        }
        String text = new String(tar.content().readAllBytes(), StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        return (newline < 0 ? text : text.substring(0, newline)).strip();
    }
}
