package io.drover.core.packages;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A semantic version, read leniently like KubeVela's addon versions: a leading {@code v} is ignored, missing minor
 * and patch parts are zero, leading zeros are dropped. Ordering is semver precedence (build metadata is ignored,
 * except as a last tie-break so that sorting is stable); {@link #toString()} is the normalised form.
 */
public final class Version implements Comparable<Version> {
    private static final Pattern FORM = Pattern.compile(
            "v?(\\d{1,18})(?:\\.(\\d{1,18}))?(?:\\.(\\d{1,18}))?(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?");

    private final long major;
    private final long minor;
    private final long patch;
    private final String prerelease;
    private final String build;
    private final String original;

    private Version(long major, long minor, long patch, String prerelease, String build, String original) {
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.prerelease = prerelease;
        this.build = build;
        this.original = original;
    }

    public static Version of(long major, long minor, long patch) {
        return new Version(major, minor, patch, "", "", major + "." + minor + "." + patch);
    }

    /** Parses a version or throws a {@link PackageException} that quotes it. */
    public static Version parse(String text) {
        Version version = tryParse(text);
        if (version == null) {
            throw new PackageException("'" + text + "' is not a semantic version (expected MAJOR.MINOR.PATCH, e.g. 1.4.0)");
        }
        return version;
    }

    /** The version, or null when the text is not one. */
    public static Version tryParse(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = FORM.matcher(text.strip());
        if (!m.matches()) {
            return null;
        }
        return new Version(Long.parseLong(m.group(1)), m.group(2) == null ? 0 : Long.parseLong(m.group(2)),
                m.group(3) == null ? 0 : Long.parseLong(m.group(3)), m.group(4) == null ? "" : m.group(4),
                m.group(5) == null ? "" : m.group(5), text.strip());
    }

    /** True when the text has all three numeric parts (what a package's own version must have). */
    static boolean isComplete(String text) {
        Matcher m = FORM.matcher(text.strip());
        return m.matches() && m.group(3) != null;
    }

    public long major() {
        return major;
    }

    public long minor() {
        return minor;
    }

    public long patch() {
        return patch;
    }

    public String prerelease() {
        return prerelease;
    }

    public boolean isPrerelease() {
        return !prerelease.isEmpty();
    }

    /** The text this version was read from (e.g. {@code v1.2.0}), as registries spell it. */
    public String original() {
        return original;
    }

    /** Same precedence: {@code v1.2.0}, {@code 1.2} and {@code 1.2.0+build} are all the same version. */
    public boolean sameAs(Version other) {
        return comparePrecedence(other) == 0;
    }

    public int comparePrecedence(Version o) {
        int c = Long.compare(major, o.major);
        if (c == 0) {
            c = Long.compare(minor, o.minor);
        }
        if (c == 0) {
            c = Long.compare(patch, o.patch);
        }
        return c != 0 ? c : comparePrerelease(prerelease, o.prerelease);
    }

    @Override
    public int compareTo(Version o) {
        int c = comparePrecedence(o);
        return c != 0 ? c : build.compareTo(o.build);
    }

    private static int comparePrerelease(String a, String b) {
        if (a.equals(b)) {
            return 0;
        }
        if (a.isEmpty()) {
            return 1;
        }
        if (b.isEmpty()) {
            return -1;
        }
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            boolean xNum = isNumeric(x[i]);
            boolean yNum = isNumeric(y[i]);
            int c;
            if (xNum && yNum) {
                c = x[i].length() != y[i].length() ? Integer.compare(x[i].length(), y[i].length()) : x[i].compareTo(y[i]);
            } else if (xNum || yNum) {
                c = xNum ? -1 : 1;
            } else {
                c = x[i].compareTo(y[i]);
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    private static boolean isNumeric(String part) {
        for (int i = 0; i < part.length(); i++) {
            if (!Character.isDigit(part.charAt(i))) {
                return false;
            }
        }
        return !part.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Version v && compareTo(v) == 0;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(major, minor, patch, prerelease, build);
    }

    /** Equal for versions of the same precedence ({@code 1.2.0}, {@code v1.2.0+build}). */
    public String precedenceKey() {
        return major + "." + minor + "." + patch + (prerelease.isEmpty() ? "" : "-" + prerelease);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch + (prerelease.isEmpty() ? "" : "-" + prerelease)
                + (build.isEmpty() ? "" : "+" + build);
    }
}
