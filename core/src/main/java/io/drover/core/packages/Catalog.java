package io.drover.core.packages;

import io.drover.model.packages.PackageMetadata.Dependency;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the registries offer, merged in their configured order: every version of every addon with the registry that
 * holds it and that version's dependencies. When two registries hold the same version, the earlier one wins.
 */
public final class Catalog {
    /** One version of one addon, as a registry lists it. */
    public record Candidate(String name, Version version, String registry, List<Dependency> dependencies,
                            String systemDrover) {
        public Candidate {
            dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
        }
    }

    /** One registry's listing. */
    public record Listing(String registry, List<Candidate> candidates) {
    }

    private final List<String> registries;
    private final Map<String, List<Candidate>> byName;
    private final Map<String, List<Candidate>> everyCopy;

    private Catalog(List<String> registries, Map<String, List<Candidate>> byName, Map<String, List<Candidate>> everyCopy) {
        this.registries = registries;
        this.byName = byName;
        this.everyCopy = everyCopy;
    }

    public static Catalog of(List<Listing> listings) {
        List<String> registries = new ArrayList<>();
        Map<String, List<Candidate>> byName = new HashMap<>();
        Map<String, List<Candidate>> everyCopy = new HashMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Listing listing : listings) {
            registries.add(listing.registry());
            for (Candidate c : listing.candidates()) {
                everyCopy.computeIfAbsent(c.name(), n -> new ArrayList<>()).add(c);
                if (seen.add(c.name() + "@" + c.version().precedenceKey())) {
                    byName.computeIfAbsent(c.name(), n -> new ArrayList<>()).add(c);
                }
            }
        }
        return new Catalog(List.copyOf(registries), byName, everyCopy);
    }

    public List<String> registries() {
        return registries;
    }

    public boolean hasRegistry(String name) {
        return registries.contains(name);
    }

    /** Every version of the addon across registries (no duplicates); empty when no registry has it. */
    public List<Candidate> versions(String name) {
        return byName.getOrDefault(name, List.of());
    }

    /** The versions one registry holds of the addon. */
    public List<Candidate> versions(String name, String registry) {
        return everyCopy.getOrDefault(name, List.of()).stream().filter(c -> c.registry().equals(registry)).toList();
    }

    /** Addon name → versions newest first, merged across registries (KubeVela's listAvailableAddons). */
    public Map<String, List<Candidate>> merged() {
        Map<String, List<Candidate>> merged = new LinkedHashMap<>();
        byName.keySet().stream().sorted().forEach(name -> merged.put(name, versions(name).stream()
                .sorted((a, b) -> b.version().compareTo(a.version())).toList()));
        return merged;
    }
}
