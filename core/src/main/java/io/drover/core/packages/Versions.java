package io.drover.core.packages;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Sorting and choosing among the versions a registry offers. */
public final class Versions {
    private Versions() {
    }

    /** Newest first; texts that are not versions are dropped, as registries may list anything. */
    public static List<Version> sortDescending(Collection<String> texts) {
        List<Version> versions = new ArrayList<>();
        for (String text : texts) {
            Version v = Version.tryParse(text);
            if (v != null) {
                versions.add(v);
            }
        }
        versions.sort((a, b) -> b.comparePrecedence(a)); // stable: equal versions keep their listed order
        return versions;
    }

    /**
     * The requested version (compared by precedence, so {@code 1.2.0} finds {@code v1.2.0}), or with none requested
     * the highest that is not a pre-release (the highest pre-release when there is nothing else).
     */
    public static Optional<Version> choose(String requested, Collection<Version> available) {
        if (requested != null && !requested.isBlank()) {
            Version wanted = Version.parse(requested);
            return available.stream().filter(v -> v.sameAs(wanted)).findFirst();
        }
        return available.stream().filter(v -> !v.isPrerelease()).max(Comparator.naturalOrder())
                .or(() -> available.stream().max(Comparator.naturalOrder()));
    }

    /** The highest version the constraint allows, preferring releases unless the constraint names a pre-release. */
    public static Optional<Version> highestAllowed(VersionConstraint constraint, Collection<Version> available) {
        Optional<Version> release = available.stream().filter(v -> !v.isPrerelease()).filter(constraint::allows)
                .max(Comparator.naturalOrder());
        if (release.isPresent() || !constraint.mentionsPrerelease()) {
            return release;
        }
        return available.stream().filter(constraint::allows).max(Comparator.naturalOrder());
    }

    /** {@code [1.0.0 1.2.0 2.0.0]}: ascending and space-separated, the way KubeVela's messages list them. */
    public static String listing(Collection<Version> versions) {
        return versions.stream().sorted().map(Version::original).distinct().toList().toString().replace(",", "");
    }
}
