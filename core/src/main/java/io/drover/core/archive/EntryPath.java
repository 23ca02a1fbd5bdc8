package io.drover.core.archive;

import java.util.ArrayList;
import java.util.List;

/** Checks archive entry names: relative, no {@code ..}, no NUL; returns the normalized name ("a/b", no "./"). */
public final class EntryPath {
    private EntryPath() {
    }

    public static String check(String name) {
        if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new ArchiveException("entry with an empty or NUL-containing name");
        }
        if (name.startsWith("/") || name.startsWith("\\") || (name.length() > 1 && name.charAt(1) == ':')) {
            throw new ArchiveException("entry '" + name + "' has an absolute path");
        }
        List<String> parts = new ArrayList<>();
        for (String part : name.split("[/\\\\]")) {
            if (part.equals("..")) {
                throw new ArchiveException("entry '" + name + "' leaves the package with '..'");
            }
            if (!part.isEmpty() && !part.equals(".")) {
                parts.add(part);
            }
        }
        if (parts.isEmpty()) {
            return "";
        }
        return String.join("/", parts);
    }

    /**
     * Where a symbolic link entry points, as a normalized path relative to the archive root; refused when it is
     * absolute or climbs above the root.
     */
    public static String linkTarget(String entry, String target) {
        if (target == null || target.isEmpty() || target.startsWith("/")) {
            throw new ArchiveException("link '" + entry + "' points to '" + target + "' outside the package");
        }
        List<String> resolved = new ArrayList<>(List.of(entry.split("/")));
        resolved.removeLast();
        for (String part : target.split("/")) {
            if (part.equals("..")) {
                if (resolved.isEmpty()) {
                    throw new ArchiveException("link '" + entry + "' points to '" + target + "' outside the package");
                }
                resolved.removeLast();
            } else if (!part.isEmpty() && !part.equals(".")) {
                resolved.add(part);
            }
        }
        return String.join("/", resolved);
    }
}
