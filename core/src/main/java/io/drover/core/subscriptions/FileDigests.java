package io.drover.core.subscriptions;

import io.drover.core.Hashing;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The rendered files of one step of one instance as planning compares them: file path → md5 (lowercase hex), an
 * immutable map that keeps each md5 as two longs and each path as the instance's group id between parts shared by
 * every instance of the step ({@link Paths}). A million instances then hold about 60 bytes of digests each instead
 * of their paths and hex strings. Compares equal to any map with the same paths and hex md5s.
 */
public final class FileDigests extends AbstractMap<String, String> {
    /**
     * The paths of a step's files, each split where the instance's group id occurs: the same for every instance of
     * the step, so one shared object serves them all.
     */
    public record Paths(List<List<String>> parts) {
    }

    private static final HexFormat HEX = HexFormat.of();

    private final Paths paths;
    private final String groupId;
    /** Two longs per file, in the order of {@code paths}, from {@code from}: several steps may share one array. */
    private final long[] md5;
    private final int from;

    private FileDigests(Paths paths, String groupId, long[] md5, int from) {
        this.paths = paths;
        this.groupId = groupId;
        this.md5 = md5;
        this.from = from;
    }

    /**
     * The digests of one step kept in a larger array: {@code paths.parts().size()} files whose md5s start at
     * {@code md5[from]}. The array is not copied and must not change.
     */
    public static FileDigests view(Paths paths, String groupId, long[] md5, int from) {
        if (from < 0 || from + 2 * paths.parts().size() > md5.length) {
            throw new IllegalArgumentException("md5s " + from + ".." + (from + 2 * paths.parts().size()) + " of " + md5.length);
        }
        return new FileDigests(paths, groupId, md5, from);
    }

    /** The shared paths of these files. */
    public Paths paths() {
        return paths;
    }

    /** The group id the paths are split at ("" when they are not). */
    public String groupId() {
        return groupId;
    }

    /** Appends the md5s (two longs per file, in path order) to {@code out} from {@code at}; returns the next index. */
    public int copyMd5s(long[] out, int at) {
        System.arraycopy(md5, from, out, at, 2 * size());
        return at + 2 * size();
    }

    /**
     * The digests of rendered files (path → content) of an instance whose paths contain {@code groupId};
     * {@code intern} returns the shared equal {@link Paths}.
     */
    public static FileDigests ofContents(Map<String, String> contents, String groupId, UnaryOperator<Paths> intern) {
        List<List<String>> parts = new ArrayList<>(contents.size());
        long[] md5 = new long[contents.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> file : contents.entrySet()) {
            parts.add(groupId.isEmpty() ? List.of(file.getKey())
                    : List.of(file.getKey().split(java.util.regex.Pattern.quote(groupId), -1)));
            byte[] digest = Hashing.md5Bytes(file.getValue());
            md5[i++] = bigEndianLong(digest, 0);
            md5[i++] = bigEndianLong(digest, 8);
        }
        return new FileDigests(intern.apply(new Paths(List.copyOf(parts))), groupId, md5, 0);
    }

    private static long bigEndianLong(byte[] bytes, int from) {
        long value = 0;
        for (int k = from; k < from + 8; k++) {
            value = (value << 8) | (bytes[k] & 0xFF);
        }
        return value;
    }

    /** From path → md5 in hex (32 digits). */
    public static FileDigests of(Map<String, String> md5s) {
        if (md5s instanceof FileDigests d) {
            return d;
        }
        List<List<String>> parts = new ArrayList<>(md5s.size());
        long[] md5 = new long[md5s.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> file : md5s.entrySet()) {
            String hex = file.getValue();
            if (hex.length() != 32) {
                throw new IllegalArgumentException("not an md5: " + hex);
            }
            parts.add(List.of(file.getKey()));
            md5[i++] = HexFormat.fromHexDigitsToLong(hex, 0, 16);
            md5[i++] = HexFormat.fromHexDigitsToLong(hex, 16, 32);
        }
        return new FileDigests(new Paths(List.copyOf(parts)), "", md5, 0);
    }

    @Override
    public int size() {
        return paths.parts().size();
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public String get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : md5(i);
    }

    private String path(int i) {
        return String.join(groupId, paths.parts().get(i));
    }

    private String md5(int i) {
        return HEX.toHexDigits(md5[from + 2 * i]) + HEX.toHexDigits(md5[from + 2 * i + 1]);
    }

    /** The file whose path is {@code key}, compared part by part so that no path is built. */
    private int indexOf(Object key) {
        if (!(key instanceof String path)) {
            return -1;
        }
        for (int i = 0; i < size(); i++) {
            if (isPath(path, paths.parts().get(i))) {
                return i;
            }
        }
        return -1;
    }

    private boolean isPath(String path, List<String> parts) {
        int at = 0;
        for (int p = 0; p < parts.size(); p++) {
            if (p > 0) {
                if (!path.startsWith(groupId, at)) {
                    return false;
                }
                at += groupId.length();
            }
            if (!path.startsWith(parts.get(p), at)) {
                return false;
            }
            at += parts.get(p).length();
        }
        return at == path.length();
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return FileDigests.this.size();
            }

            @Override
            public Iterator<Entry<String, String>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size();
                    }

                    @Override
                    public Entry<String, String> next() {
                        if (!hasNext()) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new SimpleImmutableEntry<>(path(i), md5(i));
                    }
                };
            }
        };
    }

    /** Two digests of the same paths compare their longs; anything else compares as maps do. */
    @Override
    public boolean equals(Object o) {
        if (o instanceof FileDigests d && d.paths.equals(paths) && d.groupId.equals(groupId)) {
            return Arrays.equals(d.md5, d.from, d.from + 2 * d.size(), md5, from, from + 2 * size());
        }
        return super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }
}
