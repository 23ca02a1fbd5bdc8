package io.drover.core.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.Catalog.Listing;
import io.drover.core.packages.DependencyResolver.Request;
import io.drover.core.testing.ReferenceData;
import io.drover.model.packages.PackageMetadata.Dependency;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Drover's version matching, sorting, choosing and dependency resolution against KubeVela's own test vectors and
 * the catalog scenarios in {@code ../shared/reference-data/vela/}.
 */
class VelaConformanceTest {
    static Map<String, Object> cases;
    static Map<String, Object> scenarios;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void load() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Path dir = ReferenceData.dir("vela");
        cases = yaml.readValue(dir.resolve("resolver-cases.from-kubevela-tests.yaml").toFile(), Map.class);
        scenarios = yaml.readValue(dir.resolve("catalog-dependency-scenarios.derived.yaml").toFile(), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }

    @Test
    void checkSemVerMatchesEveryKubeVelaCase() {
        List<Map<String, Object>> checks = list(cases.get("checkSemVer (TestCheckSemVer; all expect err=nil)"));
        assertThat(checks).hasSizeGreaterThan(20);
        for (Map<String, Object> c : checks) {
            Version actual = Version.parse(String.valueOf(c.get("actual")));
            boolean match = VersionConstraint.parse(String.valueOf(c.get("require"))).allows(actual);
            assertThat(match).as("%s satisfies '%s'", c.get("actual"), c.get("require")).isEqualTo(c.get("match"));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void sortVersionsDescendingMatches() {
        for (Map<String, Object> c : list(cases.get("sortVersionsDescending (TestSortVersionsDescending)"))) {
            List<String> in = ((List<Object>) c.get("in")).stream().map(String::valueOf).toList();
            List<String> expected = c.get("out") == null ? List.of()
                    : ((List<Object>) c.get("out")).stream().map(String::valueOf).toList();
            assertThat(Versions.sortDescending(in).stream().map(Version::toString).toList()).as("sorting %s", in)
                    .isEqualTo(expected);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void calculateDependencyVersionToInstallMatchesResultsAndMessages() {
        for (Map<String, Object> c : list(cases.get("calculateDependencyVersionToInstall (TestCalculateDependencyVersionToInstall)"))) {
            Map<String, Object> dep = (Map<String, Object>) c.get("dep");
            Map<String, List<Object>> available = (Map<String, List<Object>>) c.getOrDefault("available", Map.of());
            Map<String, Object> installed = (Map<String, Object>) c.getOrDefault("installed", Map.of());
            Dependency dependency = new Dependency((String) dep.get("name"), (String) dep.get("version"));
            String result;
            try {
                result = chooseDependency(dependency, available, installed);
            } catch (PackageException e) {
                result = "error: " + e.getMessage();
            }
            Object expected = c.containsKey("err") ? "error: " + c.get("err") : String.valueOf(c.get("result"));
            assertThat(result).as("dependency %s", dep).isEqualTo(expected);
        }
    }

    /** KubeVela's function: an installed addon wins if it satisfies the constraint; otherwise the registries decide. */
    private static String chooseDependency(Dependency dep, Map<String, List<Object>> available, Map<String, Object> installed) {
        if (dep.name() != null && installed.containsKey(dep.name())) {
            Version current = Version.parse(String.valueOf(installed.get(dep.name())));
            if (!VersionConstraint.parse(dep.version()).allows(current)) {
                throw new PackageException("addon " + dep.name() + " version '" + dep.version()
                        + "' does not match installed version '" + current.original() + "'");
            }
            return current.original();
        }
        return new DependencyResolver(catalog(Map.of("reg", available)), Map.of(), Version.of(1, 0, 0))
                .dependencyVersion(dep).version().original();
    }

    @Test
    void installedDependencyThatDoesNotMatchFailsInTheResolverToo() {
        Catalog catalog = catalog(Map.of("reg", Map.of("addon1", List.of("1.2.0", "1.3.0"),
                "app", List.of())));
        Catalog withApp = Catalog.of(List.of(new Listing("reg", List.of(
                new Candidate("app", Version.parse("1.0.0"), "reg", List.of(new Dependency("addon1", ">=1.2.3, <2.0.0")), null),
                catalog.versions("addon1").get(0), catalog.versions("addon1").get(1)))));
        assertThatThrownBy(() -> new DependencyResolver(withApp, Map.of("addon1", Version.parse("1.2.0")), Version.of(1, 0, 0))
                .resolve(Request.parse("app"))).hasMessage(
                "addon addon1 version '>=1.2.3, <2.0.0' does not match installed version '1.2.0' (required by app; upgrade addon1 first)");
    }

    @Test
    @SuppressWarnings("unchecked")
    void validateAddonDependenciesReportsEveryFailure() {
        Map<String, Object> c = list(cases.get("validateAddonDependencies (TestValidateAddonDependencies)")).getFirst();
        Map<String, Object> addon = (Map<String, Object>) c.get("addon");
        List<Dependency> deps = ((List<Map<String, String>>) addon.get("dependencies")).stream()
                .map(d -> new Dependency(d.get("name"), d.get("version"))).toList();
        Catalog catalog = Catalog.of(List.of(new Listing("reg", List.of(
                new Candidate((String) addon.get("name"), Version.parse("1.0.0"), "reg", deps, null)))));
        assertThatThrownBy(() -> new DependencyResolver(catalog, Map.of(), Version.of(1, 0, 0))
                .resolve(Request.parse((String) addon.get("name"))))
                .isInstanceOfSatisfying(PackageException.class, e -> assertThat(e.problems()).isEqualTo(c.get("err")));
    }

    @Test
    @SuppressWarnings("unchecked")
    void listAvailableAddonsMergesRegistriesNewestFirst() {
        Map<String, Object> c = (Map<String, Object>) cases.get("listAvailableAddons merge (TestListAvailableAddons)");
        Map<String, Map<String, List<Object>>> registries = new LinkedHashMap<>();
        registries.put("registry1", (Map<String, List<Object>>) c.get("registry1"));
        registries.put("registry2", (Map<String, List<Object>>) c.get("registry2"));
        Map<String, List<String>> merged = new LinkedHashMap<>();
        catalog(registries).merged().forEach((name, versions) ->
                merged.put(name, versions.stream().map(v -> v.version().original()).toList()));
        assertThat(merged).isEqualTo(c.get("merged"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void chooseVersionIgnoresTheVPrefixAndPrefersReleases() {
        Map<String, Object> c = (Map<String, Object>) cases.get("chooseVersion for helm registries (TestChooseAddonVersion)");
        List<Version> available = ((List<String>) c.get("versions_desc")).stream().map(Version::parse).toList();
        for (Map<String, Object> choice : list(c.get("cases"))) {
            assertThat(Versions.choose((String) choice.get("specified"), available).orElseThrow().original())
                    .as("choosing %s", choice.get("specified")).isEqualTo(choice.get("chosen"));
        }
        Catalog catalog = catalog(Map.of("helm", Map.of("fluxcd", List.copyOf(available.stream().map(Version::original).toList()))));
        assertThatThrownBy(() -> new DependencyResolver(catalog, Map.of(), Version.of(1, 0, 0)).resolve(Request.parse("fluxcd@9.9.9")))
                .hasMessage("version 9.9.9 of addon fluxcd not found; available versions [v1.2.0 v1.3.6 v1.4.0-beta1]");
    }

    /**
     * The catalog scenarios, over every addon and version of the catalog snapshot ({@code catalog-addons.tsv}, each
     * version with its own dependencies). Drover installs the derived topological order; where KubeVela stops after
     * the first missing dependency (its {@code kubevela_actual_order}), Drover intentionally installs every sibling.
     */
    @Test
    @SuppressWarnings("unchecked")
    void catalogScenariosInstallEveryDependencyInTopologicalOrder() throws IOException {
        Catalog catalog = catalogSnapshot();
        int differs = 0;
        for (Map<String, Object> s : list(scenarios.get("scenarios"))) {
            List<DependencyResolver.Step> steps = new DependencyResolver(catalog, Map.of(), Version.of(1, 0, 0))
                    .resolve(new Request((String) s.get("registry"), (String) s.get("enable"), String.valueOf(s.get("version"))))
                    .install();
            List<String> order = steps.stream().map(DependencyResolver.Step::name).toList();
            assertThat(order).as("installing %s", s.get("enable")).isEqualTo(s.get("topological_install_order (derived)"));
            Map<String, String> registries = new LinkedHashMap<>();
            steps.forEach(step -> registries.put(step.name(), step.candidate().registry()));
            assertThat(registries).as("registries for %s", s.get("enable")).isEqualTo(s.get("registry_of_each"));
            if (!order.equals(s.get("kubevela_actual_order_from_empty_cluster (derived from addon.go installDependency)"))) {
                differs++;
            }
        }
        assertThat(differs).as("scenarios where KubeVela skips later siblings and Drover does not").isGreaterThan(0);
    }

    /** Every version of every addon in the snapshot; official addons under addons/, experimental ones elsewhere. */
    private static Catalog catalogSnapshot() throws IOException {
        Map<String, List<Candidate>> byRegistry = new LinkedHashMap<>();
        byRegistry.put("KubeVela(official)", new ArrayList<>());
        byRegistry.put("experimental", new ArrayList<>());
        for (String line : Files.readAllLines(ReferenceData.dir("vela").resolve("catalog-addons.tsv"))) {
            if (line.startsWith("#") || line.startsWith("path\t")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            String registry = f[0].startsWith("experimental/") ? "experimental" : "KubeVela(official)";
            Map<String, List<Dependency>> depsAt = new HashMap<>();
            if (!f[5].isBlank()) {
                for (String item : f[5].split(" / ")) {
                    String[] versionDeps = item.split(":", 2);
                    depsAt.put(versionDeps[0], dependencies(versionDeps[1]));
                }
            }
            for (String v : f[3].split(" \\| ")[0].split(",")) {
                Version version = Version.tryParse(v);
                if (version != null) {
                    byRegistry.get(registry).add(new Candidate(f[1], version, registry,
                            depsAt.getOrDefault(v, dependencies(f[4])), null));
                }
            }
        }
        List<Listing> listings = new ArrayList<>();
        byRegistry.forEach((registry, candidates) -> listings.add(new Listing(registry, candidates)));
        return Catalog.of(listings);
    }

    private static List<Dependency> dependencies(String names) {
        return names.isBlank() || names.equals("-") ? List.of()
                : java.util.Arrays.stream(names.split(";")).map(n -> new Dependency(n.strip(), null)).toList();
    }

    private static Catalog catalog(Map<String, Map<String, List<Object>>> registries) {
        List<Listing> listings = new ArrayList<>();
        registries.forEach((registry, addons) -> {
            List<Candidate> candidates = new ArrayList<>();
            addons.forEach((name, versions) -> versions.forEach(v ->
                    candidates.add(new Candidate(name, Version.parse(String.valueOf(v)), registry, List.of(), null))));
            listings.add(new Listing(registry, candidates));
        });
        return Catalog.of(listings);
    }
}
