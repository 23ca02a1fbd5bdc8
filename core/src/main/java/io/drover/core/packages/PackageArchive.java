package io.drover.core.packages;

import io.drover.core.archive.ArchiveException;
import io.drover.core.archive.EntryPath;
import io.drover.core.archive.TarReader;
import io.drover.core.archive.TarWriter;
import io.drover.model.packages.PackageMetadata;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

/**
 * A plugin package: a gzip-compressed tar with {@code metadata.yaml} at its root. Reading checks every entry
 * (no absolute paths, no {@code ..}, links stay inside, no devices, size and count limits) and the metadata.
 */
public record PackageArchive(PackageMetadata metadata, Set<String> files, String notes, long contentBytes) {
    public static final String METADATA = "metadata.yaml";
    public static final String NOTES = "NOTES.j2";
    public static final long MAX_CONTENT_BYTES = 1L << 30;
    public static final int MAX_ENTRIES = 100_000;
    private static final int MAX_TEXT = 1 << 20;

    /** One file to put in a package: its path inside it, mode and content. */
    public record SourceFile(String path, int mode, byte[] content) {
    }

    /** Reads and checks a package; a {@link PackageException} names the first unsafe entry or every metadata problem. */
    public static PackageArchive read(InputStream tgz) {
        Set<String> files = new HashSet<>();
        Set<String> directories = new HashSet<>();
        byte[] metadataYaml = null;
        String notes = null;
        long total = 0;
        int entries = 0;
        try (InputStream in = new GZIPInputStream(tgz, 65536)) {
            TarReader tar = new TarReader(in);
            for (TarReader.Entry entry = tar.next(); entry != null; entry = tar.next()) {
                if (++entries > MAX_ENTRIES) {
                    throw new PackageException("package has more than " + MAX_ENTRIES + " entries");
                }
                String name = EntryPath.check(entry.name());
                switch (entry.type()) {
                    case '5' -> directories.add(name);
                    case '0', '\0', '7' -> {
                        total += entry.size();
                        if (total > MAX_CONTENT_BYTES) {
                            throw new PackageException("package content is larger than " + MAX_CONTENT_BYTES + " bytes");
                        }
                        files.add(name);
                        if (name.equals(METADATA)) {
                            metadataYaml = text(tar, entry, name);
                        } else if (name.equals(NOTES)) {
                            notes = new String(text(tar, entry, name), StandardCharsets.UTF_8);
                        }
                    }
                    // Links are refused outright: a chain of them can point anywhere once extracted, and a plugin
                    // needs none.
                    case '2' -> throw new PackageException("entry '" + name + "' is a symbolic link (to '"
                            + entry.linkName() + "'): packages may not contain links");
                    case '1' -> throw new PackageException("entry '" + name + "' is a hard link (to '"
                            + entry.linkName() + "'): packages may not contain links");
                    default -> throw new PackageException("entry '" + entry.name()
                            + "' is a device, fifo or other special file (type '" + entry.type() + "')");
                }
            }
        } catch (ArchiveException e) {
            throw new PackageException("unsafe or corrupt package: " + e.getMessage());
        } catch (ZipException | java.io.EOFException e) {
            throw new PackageException("not a gzip-compressed tar archive, or a truncated one: " + e.getMessage());
        } catch (IOException e) {
            throw new PackageException("package cannot be read: " + e.getMessage());
        }
        if (metadataYaml == null) {
            throw new PackageException("package has no " + METADATA + " at its root");
        }
        PackageMetadata metadata;
        try {
            metadata = PackageMetadata.fromYaml(metadataYaml);
        } catch (IllegalArgumentException e) {
            throw new PackageException(e.getMessage());
        }
        MetadataValidator.validate(metadata, files);
        return new PackageArchive(metadata, Set.copyOf(files), notes, total);
    }

    private static byte[] text(TarReader tar, TarReader.Entry entry, String name) throws IOException {
        if (entry.size() > MAX_TEXT) {
            throw new PackageException(name + " is larger than " + MAX_TEXT + " bytes");
        }
        return tar.content().readAllBytes();
    }

    /**
     * Writes a package from its files (sorted by path, fixed times, so the same files give the same bytes and the
     * same sha256). Checks the metadata first, as {@code drover plugin package} promises.
     */
    public static byte[] build(SortedMap<String, SourceFile> sources) {
        SourceFile metadataFile = sources.get(METADATA);
        if (metadataFile == null) {
            throw new PackageException("the directory has no " + METADATA);
        }
        PackageMetadata metadata;
        try {
            metadata = PackageMetadata.fromYaml(metadataFile.content());
        } catch (IllegalArgumentException e) {
            throw new PackageException(e.getMessage());
        }
        for (String path : sources.keySet()) {
            try {
                if (!EntryPath.check(path).equals(path)) {
                    throw new PackageException("file '" + path + "' has a path that is not normalized");
                }
            } catch (ArchiveException e) {
                throw new PackageException(e.getMessage());
            }
        }
        MetadataValidator.validate(metadata, sources.keySet());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out); TarWriter tar = new TarWriter(gzip)) {
            for (SourceFile file : sources.values()) {
                tar.file(file.path(), file.mode(), file.content());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The text of the named files of a package (template sources), by path; a named file the package lacks is absent
     * from the result. Read from a package that {@link #read} accepted.
     */
    public static Map<String, String> texts(InputStream tgz, Set<String> paths) {
        Map<String, String> texts = new HashMap<>();
        try (InputStream in = new GZIPInputStream(tgz, 65536)) {
            TarReader tar = new TarReader(in);
            for (TarReader.Entry entry = tar.next(); entry != null && texts.size() < paths.size(); entry = tar.next()) {
                String name = EntryPath.check(entry.name());
                if (entry.isFile() && paths.contains(name)) {
                    texts.put(name, new String(text(tar, entry, name), StandardCharsets.UTF_8));
                }
            }
        } catch (ArchiveException | IOException e) {
            throw new PackageException("package cannot be read: " + e.getMessage());
        }
        return texts;
    }

    /** The file name a package is stored and published under. */
    public static String fileName(String name, String version) {
        return name + "-" + version + ".tgz";
    }
}
