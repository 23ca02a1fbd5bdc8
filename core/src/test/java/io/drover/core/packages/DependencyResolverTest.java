package io.drover.core.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.Catalog.Listing;
import io.drover.core.packages.DependencyResolver.Plan;
import io.drover.core.packages.DependencyResolver.Request;
import io.drover.core.packages.DependencyResolver.Step;
import io.drover.model.packages.PackageMetadata.Dependency;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DependencyResolverTest {
    private static Candidate addon(String registry, String name, String version, String... deps) {
        List<Dependency> ds = new ArrayList<>();
        for (String d : deps) {
            String[] nameAndConstraint = d.split(" ", 2);
            ds.add(new Dependency(nameAndConstraint[0], nameAndConstraint.length > 1 ? nameAndConstraint[1] : null));
        }
        return new Candidate(name, Version.parse(version), registry, ds, null);
    }

    private static Plan resolve(Catalog catalog, String request, Map<String, Version> installed) {
        return new DependencyResolver(catalog, installed, Version.parse("0.1.0")).resolve(Request.parse(request));
    }

    private static List<String> order(Plan plan) {
        return plan.install().stream().map(s -> s.name() + "@" + s.candidate().version()).toList();
    }

    @Test
    void threeLevelChainInstallsDependenciesFirst() {
        Catalog catalog = Catalog.of(List.of(new Listing("main", List.of(
                addon("main", "exporter", "1.0.0", "agentlib >=1.0.0"),
                addon("main", "agentlib", "1.0.0", "libc-compat"), addon("main", "agentlib", "1.1.0", "libc-compat"),
                addon("main", "agentlib", "2.0.0-rc.1", "libc-compat"), addon("main", "libc-compat", "0.3.0")))));
        assertThat(order(resolve(catalog, "exporter", Map.of())))
                .containsExactly("libc-compat@0.3.0", "agentlib@1.1.0", "exporter@1.0.0");
    }

    @Test
    void everySiblingIsInstalledAndADiamondOnce() {
        Catalog catalog = Catalog.of(List.of(new Listing("main", List.of(
                addon("main", "app", "1.0.0", "left", "right"), addon("main", "left", "1.0.0", "base ^1.0.0"),
                addon("main", "right", "1.0.0", "base >=1.1.0"), addon("main", "base", "1.0.0"),
                addon("main", "base", "1.2.0"), addon("main", "base", "2.0.0")))));
        Plan plan = resolve(catalog, "app", Map.of());
        assertThat(order(plan)).containsExactly("base@1.2.0", "left@1.0.0", "right@1.0.0", "app@1.0.0");
        assertThat(plan.install().stream().filter(s -> s.name().equals("base")).findFirst().orElseThrow().requiredBy())
                .containsExactly("left", "right");
    }

    @Test
    void aDiamondThatCannotBeSatisfiedNamesBothSides() {
        Catalog catalog = Catalog.of(List.of(new Listing("main", List.of(
                addon("main", "app", "1.0.0", "left", "right"), addon("main", "left", "1.0.0", "base <2.0.0"),
                addon("main", "right", "1.0.0", "base >=2.0.0"), addon("main", "base", "1.0.0"),
                addon("main", "base", "2.0.0")))));
        assertThatThrownBy(() -> resolve(catalog, "app", Map.of()))
                .hasMessage("addon right needs base '>=2.0.0' but left needs base 1.0.0");
    }

    @Test
    void aCycleIsReportedWithItsPath() {
        Catalog catalog = Catalog.of(List.of(new Listing("main", List.of(
                addon("main", "a", "1.0.0", "b"), addon("main", "b", "1.0.0", "c"), addon("main", "c", "1.0.0", "b")))));
        assertThatThrownBy(() -> resolve(catalog, "a", Map.of())).hasMessage("dependency cycle: b -> c -> b");
    }

    @Test
    void anInstalledDependencyIsKeptNotUpgraded() {
        Catalog catalog = Catalog.of(List.of(new Listing("main", List.of(
                addon("main", "app", "1.0.0", "lib >=1.0.0"), addon("main", "lib", "1.0.0"), addon("main", "lib", "1.5.0")))));
        Plan plan = resolve(catalog, "app", Map.of("lib", Version.parse("1.0.0")));
        assertThat(order(plan)).containsExactly("app@1.0.0");
        assertThat(plan.alreadyInstalled()).containsEntry("lib", Version.parse("1.0.0"));
    }

    @Test
    void lookupOrderAndErrorsNameRegistriesAndVersions() {
        Catalog catalog = Catalog.of(List.of(
                new Listing("first", List.of(addon("first", "x", "1.0.0"))),
                new Listing("second", List.of(addon("second", "x", "1.0.0"), addon("second", "x", "1.1.0"),
                        addon("second", "y", "2.0.0", "missing >=1.0.0", "x >=5.0.0")))));
        Plan plan = resolve(catalog, "x@1.0.0", Map.of());
        assertThat(plan.requested().candidate().registry()).as("the earlier registry wins a tie").isEqualTo("first");
        assertThat(resolve(catalog, "second/x@v1.0.0", Map.of()).requested().candidate().registry()).isEqualTo("second");
        assertThat(resolve(catalog, "x", Map.of()).requested().candidate().version()).isEqualTo(Version.parse("1.1.0"));
        assertThatThrownBy(() -> resolve(catalog, "nope/x", Map.of()))
                .hasMessage("registry nope does not exist; registries are [first, second]");
        assertThatThrownBy(() -> resolve(catalog, "first/y", Map.of())).hasMessage("addon y not found in registry first");
        assertThatThrownBy(() -> resolve(catalog, "z", Map.of()))
                .hasMessage("addon z not found in any registry (searched [first, second])");
        assertThatThrownBy(() -> resolve(catalog, "x@3.0.0", Map.of()))
                .hasMessage("version 3.0.0 of addon x not found; available versions [1.0.0 1.1.0]");
        assertThatThrownBy(() -> resolve(catalog, "y", Map.of())).isInstanceOfSatisfying(PackageException.class,
                e -> assertThat(e.problems()).containsExactly(
                        "addon y has unresolvable dependency missing: no available addon with name missing",
                        "addon y has unresolvable dependency x: no available addon with name x and version '>=5.0.0', available versions [1.0.0 1.1.0]"));
    }

    @Test
    void systemDroverIsCheckedAgainstTheServerVersion() {
        Catalog catalog = Catalog.of(List.of(new Listing("main", List.of(
                new Candidate("future", Version.parse("1.0.0"), "main", List.of(), ">=2.0.0")))));
        assertThatThrownBy(() -> resolve(catalog, "future", Map.of()))
                .hasMessage("addon future 1.0.0 requires drover >=2.0.0; this server is 0.1.0");
    }

    @Test
    void requestsParse() {
        assertThat(Request.parse("reg/name@v1.2.0")).isEqualTo(new Request("reg", "name", "v1.2.0"));
        assertThat(Request.parse("name")).isEqualTo(new Request(null, "name", null));
        assertThatThrownBy(() -> Request.parse("a/b/c")).hasMessageContaining("is not [registry/]name[@version]");
        assertThatThrownBy(() -> Request.parse("name@")).hasMessageContaining("nothing after '@'");
        assertThatThrownBy(() -> Request.parse("name@latest")).hasMessageContaining("not a semantic version");
    }

    @Test
    void stepsCarryTheirRegistry() {
        Catalog catalog = Catalog.of(List.of(new Listing("a", List.of(addon("a", "top", "1.0.0", "low"))),
                new Listing("b", List.of(addon("b", "low", "1.0.0")))));
        assertThat(resolve(catalog, "top", Map.of()).install().stream().map(Step::candidate).map(Candidate::registry))
                .containsExactly("b", "a");
    }
}
