package io.drover.core.packages;

import io.drover.core.packages.Catalog.Candidate;
import io.drover.model.packages.PackageMetadata.Dependency;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what enabling an addon installs, in order (docs/operations.md, "Plugin packages, registries and addons"). Where Drover differs from KubeVela on purpose:
 * every missing dependency is installed, not only the first; a cycle is an error that shows its path; an addon
 * reached twice (a diamond) is installed once and must satisfy every constraint on it.
 */
public final class DependencyResolver {
    /** {@code [registry/]name[@version]} as operators type it. */
    public record Request(String registry, String name, String version) {
        public static Request parse(String text) {
            String rest = text.strip();
            String registry = null;
            String version = null;
            int at = rest.lastIndexOf('@');
            if (at >= 0) {
                version = rest.substring(at + 1);
                rest = rest.substring(0, at);
                if (version.isBlank()) {
                    throw new PackageException("'" + text + "': nothing after '@'; write name@1.2.3");
                }
            }
            int slash = rest.indexOf('/');
            if (slash >= 0) {
                registry = rest.substring(0, slash);
                rest = rest.substring(slash + 1);
            }
            if (rest.isBlank() || rest.contains("/") || (registry != null && registry.isBlank())) {
                throw new PackageException("'" + text + "' is not [registry/]name[@version]");
            }
            if (version != null) {
                Version.parse(version);
            }
            return new Request(registry, rest, version);
        }

        @Override
        public String toString() {
            return (registry == null ? "" : registry + "/") + name + (version == null ? "" : "@" + version);
        }
    }

    /** One addon to install, with the addons that asked for it (empty for the one requested). */
    public record Step(Candidate candidate, List<String> requiredBy) {
        public String name() {
            return candidate.name();
        }
    }

    /** The install order (dependencies first, the requested addon last) and the dependencies already installed. */
    public record Plan(List<Step> install, Map<String, Version> alreadyInstalled) {
        public Step requested() {
            return install.getLast();
        }
    }

    private final Catalog catalog;
    private final Map<String, Version> installed;
    private final Version server;

    /** {@code installed}: addon name → the version enabled now; {@code server}: checked against system.drover. */
    public DependencyResolver(Catalog catalog, Map<String, Version> installed, Version server) {
        this.catalog = catalog;
        this.installed = installed;
        this.server = server;
    }

    public Plan resolve(Request request) {
        Candidate root = chooseRequested(request);
        Walk walk = new Walk();
        walk.visit(root, null);
        if (!walk.problems.isEmpty()) {
            throw new PackageException(walk.problems);
        }
        List<Step> steps = new ArrayList<>();
        for (Candidate c : walk.order) {
            steps.add(new Step(c, List.copyOf(walk.requiredBy.getOrDefault(c.name(), List.of()))));
        }
        return new Plan(List.copyOf(steps), Map.copyOf(walk.satisfiedByInstalled));
    }

    /** The version the request names (or the newest release) in its registry (or any), with clear errors. */
    public Candidate chooseRequested(Request request) {
        if (request.registry() != null && !catalog.hasRegistry(request.registry())) {
            throw new PackageException("registry " + request.registry() + " does not exist; registries are "
                    + catalog.registries());
        }
        List<Candidate> versions = request.registry() == null ? catalog.versions(request.name())
                : catalog.versions(request.name(), request.registry());
        if (versions.isEmpty()) {
            throw new PackageException(request.registry() != null
                    ? "addon " + request.name() + " not found in registry " + request.registry()
                    : "addon " + request.name() + " not found in any registry (searched " + catalog.registries() + ")");
        }
        List<Version> available = versions.stream().map(Candidate::version).toList();
        Optional<Version> chosen = Versions.choose(request.version(), available);
        if (chosen.isEmpty()) {
            throw new PackageException("version " + request.version() + " of addon " + request.name() + " not found"
                    + (request.registry() == null ? "" : " in registry " + request.registry())
                    + "; available versions " + Versions.listing(available));
        }
        Candidate candidate = pick(versions, chosen.get());
        checkSystem(candidate);
        return candidate;
    }

    private void checkSystem(Candidate c) {
        if (c.systemDrover() != null && !c.systemDrover().isBlank()
                && !VersionConstraint.parse(c.systemDrover()).allows(server)) {
            throw new PackageException("addon " + c.name() + " " + c.version().original() + " requires drover "
                    + c.systemDrover() + "; this server is " + server);
        }
    }

    private static Candidate pick(List<Candidate> versions, Version version) {
        return versions.stream().filter(c -> c.version().sameAs(version)).findFirst().orElseThrow();
    }

    /** The version a dependency resolves to, KubeVela's calculateDependencyVersionToInstall with its messages. */
    public Candidate dependencyVersion(Dependency dep) {
        if (dep.name() == null || dep.name().isBlank()) {
            throw new PackageException("dependency name cannot be empty");
        }
        VersionConstraint constraint = VersionConstraint.parse(dep.version());
        List<Candidate> versions = catalog.versions(dep.name());
        if (versions.isEmpty()) {
            throw new PackageException("no available addon with name " + dep.name());
        }
        List<Version> available = versions.stream().map(Candidate::version).toList();
        Version chosen = Versions.highestAllowed(constraint, available).orElseThrow(() -> new PackageException(
                "no available addon with name " + dep.name() + " and version '" + dep.version()
                        + "', available versions " + Versions.listing(available)));
        return pick(versions, chosen);
    }

    private final class Walk {
        final Map<String, Candidate> done = new LinkedHashMap<>();
        final List<Candidate> order = new ArrayList<>();
        final Deque<String> path = new ArrayDeque<>();
        final Map<String, List<String>> requiredBy = new LinkedHashMap<>();
        final Map<String, Version> satisfiedByInstalled = new LinkedHashMap<>();
        final List<String> problems = new ArrayList<>();

        void visit(Candidate c, String parent) {
            path.addLast(c.name());
            for (Dependency dep : c.dependencies()) {
                String name = dep.name();
                if (name == null || name.isBlank()) {
                    problems.add("addon " + c.name() + " has a dependency with no name");
                    continue;
                }
                requiredBy.computeIfAbsent(name, n -> new ArrayList<>()).add(c.name());
                if (path.contains(name)) {
                    List<String> cycle = new ArrayList<>(path);
                    throw new PackageException("dependency cycle: "
                            + String.join(" -> ", cycle.subList(cycle.indexOf(name), cycle.size())) + " -> " + name);
                }
                VersionConstraint constraint;
                try {
                    constraint = VersionConstraint.parse(dep.version());
                } catch (PackageException e) {
                    problems.add("addon " + c.name() + " has an invalid constraint on " + name + ": " + e.getMessage());
                    continue;
                }
                Candidate planned = done.get(name);
                if (planned != null) {
                    if (!constraint.allows(planned.version())) {
                        problems.add("addon " + c.name() + " needs " + name + " '" + dep.version() + "' but "
                                + requiredBy.get(name).getFirst() + " needs " + name + " " + planned.version().original());
                    }
                    continue;
                }
                Version current = installed.get(name);
                if (current != null) {
                    if (!constraint.allows(current)) {
                        problems.add("addon " + name + " version '" + dep.version() + "' does not match installed version '"
                                + current.original() + "' (required by " + c.name() + "; upgrade " + name + " first)");
                    } else {
                        satisfiedByInstalled.put(name, current);
                    }
                    continue;
                }
                Candidate chosen;
                try {
                    chosen = dependencyVersion(dep);
                    checkSystem(chosen);
                } catch (PackageException e) {
                    problems.add("addon " + c.name() + " has unresolvable dependency " + name + ": " + e.getMessage());
                    continue;
                }
                visit(chosen, c.name());
            }
            path.removeLast();
            done.put(c.name(), c);
            order.add(c);
        }
    }
}
