package io.drover.core.agents;

import io.drover.core.packages.Version;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What an agent package is: its version and architecture, which give its file name
 * {@code drover-agent-<version>-linux-<arch>.tar.gz} and the directory it unpacks to (the name without
 * {@code .tar.gz}). A version is a semantic version written in its normal form (what the build writes), at most 64
 * characters of letters, digits, '.', '_', '+' and '-': it is part of file names and URLs.
 */
public record AgentPackageName(String version, String arch) {
    public static final String OS = "linux";
    public static final List<String> ARCHES = List.of("x86_64", "aarch64");
    static final String PREFIX = "drover-agent-";
    static final String SUFFIX = ".tar.gz";
    private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z._+-]{0,63}");

    public AgentPackageName {
        String problem = versionProblem(version);
        if (problem != null) {
            throw new AgentPackageException("version " + problem);
        }
        if (!ARCHES.contains(arch)) {
            throw new AgentPackageException("architecture " + shown(arch) + " is not one of " + ARCHES);
        }
    }

    /** Null when {@code version} may name an agent package, else what is wrong with it (after "version "). */
    public static String versionProblem(String version) {
        if (version == null || !VERSION.matcher(version).matches()) {
            return shown(version) + " must be 1 to 64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit";
        }
        Version parsed = Version.tryParse(version);
        if (parsed == null || !parsed.toString().equals(version)) {
            return shown(version) + " is not a semantic version in its normal form (MAJOR.MINOR.PATCH, e.g. 1.4.0 or 1.4.0-rc.1)";
        }
        return null;
    }

    /** The name of a file {@code drover-agent-<version>-linux-<arch>.tar.gz}; refused when it is not one. */
    public static AgentPackageName ofFileName(String fileName) {
        if (fileName == null || !fileName.endsWith(SUFFIX)) {
            throw new AgentPackageException(shown(fileName) + " is not named drover-agent-<version>-linux-<arch>.tar.gz");
        }
        return ofDirectory(fileName.substring(0, fileName.length() - SUFFIX.length()), fileName);
    }

    /** The name of the directory a package unpacks to, {@code drover-agent-<version>-linux-<arch>}. */
    public static AgentPackageName ofDirectory(String directory) {
        return ofDirectory(directory, directory);
    }

    private static AgentPackageName ofDirectory(String directory, String shownName) {
        for (String arch : ARCHES) {
            String tail = "-" + OS + "-" + arch;
            if (directory.startsWith(PREFIX) && directory.endsWith(tail) && directory.length() > PREFIX.length() + tail.length()) {
                String version = directory.substring(PREFIX.length(), directory.length() - tail.length());
                String problem = versionProblem(version);
                if (problem != null) {
                    throw new AgentPackageException(shown(shownName) + ": version " + problem);
                }
                return new AgentPackageName(version, arch);
            }
        }
        throw new AgentPackageException(shown(shownName) + " is not named drover-agent-<version>-linux-<arch>"
                + (shownName.equals(directory) ? "" : SUFFIX) + " with <arch> one of " + ARCHES);
    }

    public Version semver() {
        return Version.parse(version);
    }

    /** {@code drover-agent-<version>-linux-<arch>}: the directory the package unpacks to. */
    public String directory() {
        return PREFIX + version + "-" + OS + "-" + arch;
    }

    public String fileName() {
        return directory() + SUFFIX;
    }

    /** A name quoted for a message, its control and non-ASCII characters escaped, cut at 100 characters. */
    public static String shown(String text) {
        if (text == null) {
            return "(none)";
        }
        StringBuilder out = new StringBuilder("'");
        text.codePoints().limit(100).forEach(c -> {
            if (c >= 0x20 && c < 0x7f) {
                out.appendCodePoint(c);
            } else {
                out.append(String.format("\\u%04x", c));
            }
        });
        return out.append(text.length() > 100 ? "…'" : "'").toString();
    }
}
