package io.drover.bench;

import io.drover.core.packages.Catalog;
import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.DependencyResolver;
import io.drover.core.packages.DependencyResolver.Plan;
import io.drover.core.packages.Version;
import io.drover.model.packages.PackageMetadata.Dependency;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Resolving an addon with 50 transitive dependencies across 3 registries that each hold 100 versions of every
 * addon (15,300 versions in all). Addon i depends on i+1 and i+2 (so the graph is full of diamonds) with a range
 * constraint that rules out part of every registry. Measured: building the merged catalog from the three listings
 * and resolving, which is what every enable does; and resolving alone.
 *
 * <p>Usage: {@code bench/run ResolverBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
public class ResolverBenchmark {
    static final int DEPENDENCIES = 50;
    static final int REGISTRIES = 3;
    static final int VERSIONS = 100;

    List<Catalog.Listing> listings;
    Catalog catalog;

    @Setup
    public void setUp() {
        listings = new ArrayList<>();
        for (int r = 0; r < REGISTRIES; r++) {
            String registry = "registry-" + r;
            List<Candidate> candidates = new ArrayList<>();
            for (int addon = 0; addon <= DEPENDENCIES; addon++) {
                List<Dependency> deps = new ArrayList<>();
                for (int next = addon + 1; next <= Math.min(addon + 2, DEPENDENCIES); next++) {
                    deps.add(new Dependency("addon-" + next, ">=1.10.0, <3.50.0"));
                }
                for (int v = 0; v < VERSIONS; v++) {
                    candidates.add(new Candidate("addon-" + addon, Version.of(r + 1, v, 0), registry, deps, ">=0.1.0"));
                }
            }
            listings.add(new Catalog.Listing(registry, candidates));
        }
        catalog = Catalog.of(listings);
        Plan plan = resolve(catalog);
        if (plan.install().size() != DEPENDENCIES + 1 || !plan.install().getFirst().candidate().version().equals(Version.of(3, 49, 0))) {
            throw new IllegalStateException("unexpected plan " + plan.install().size() + " " + plan.install().getFirst());
        }
    }

    private static Plan resolve(Catalog catalog) {
        return new DependencyResolver(catalog, Map.of(), Version.of(0, 1, 0))
                .resolve(new DependencyResolver.Request(null, "addon-0", null));
    }

    @Benchmark
    public Plan catalogAndResolve() {
        return resolve(Catalog.of(listings));
    }

    @Benchmark
    public Plan resolveOnly() {
        return resolve(catalog);
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder().include(ResolverBenchmark.class.getSimpleName()).build()).run();
    }
}
