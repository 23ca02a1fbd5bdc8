package io.drover.bench;

import io.drover.core.diagnosis.GraphException;
import io.drover.core.diagnosis.OperationGraph;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
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
 * Checking a 1,000-node OperationSet and listing its paths, what applying one costs: a tree-shaped set (each node
 * hangs under one of the ten before it; about 400 paths of up to ~250 nodes), a set with 3,000 edges whose paths are
 * listed near the cap of 10,000 (a "diamond ladder" of 13 rungs and a chain: 8,192 paths of 54 nodes, and 466 short
 * branches), and a dense set of 5,000 random
 * forward edges whose path count (astronomical) is refused before anything is listed.
 *
 * <p>Usage: {@code bench/run OperationGraphBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
public class OperationGraphBenchmark {
    static final int NODES = 1000;
    static final int CAP = 10_000;

    List<OperationGraph.Node> tree;
    List<OperationGraph.Node> ladder;
    List<OperationGraph.Node> dense;
    Set<String> operations;

    @Setup
    public void setUp() {
        operations = Set.of("op");
        Random random = new Random(42);
        List<List<Integer>> to = edges();
        for (int i = 1; i < NODES; i++) {
            to.get(Math.max(0, i - 1 - random.nextInt(Math.min(i, 10)))).add(i);
        }
        tree = nodes(to);

        // Rungs of two parallel nodes (each rung doubles the paths), then a chain of 40; the other nodes are branches
        // of two nodes off node 0.
        to = edges();
        int rungs = 13;
        int previousA = 0;
        int previousB = -1;
        int next = 1;
        for (int r = 0; r < rungs; r++) {
            int a = next++;
            int b = next++;
            for (int from : new int[] {previousA, previousB}) {
                if (from >= 0) {
                    to.get(from).add(a);
                    to.get(from).add(b);
                }
            }
            previousA = a;
            previousB = b;
        }
        to.get(previousA).add(next);
        to.get(previousB).add(next);
        for (int i = next; i < next + 40; i++) {
            to.get(i).add(i + 1);
        }
        for (int i = next + 41; i + 1 < NODES; i += 2) {
            to.get(0).add(i);
            to.get(i).add(i + 1);
        }
        if ((NODES - next - 41) % 2 == 1) {
            to.get(0).add(NODES - 1);
        }
        ladder = nodes(to);

        to = edges();
        for (int i = 1; i < NODES; i++) {
            to.get(random.nextInt(i)).add(i);
        }
        Set<Long> seen = new HashSet<>();
        int extra = 0;
        while (extra < 5000 - (NODES - 1)) {
            int a = random.nextInt(NODES - 1);
            int b = a + 1 + random.nextInt(NODES - 1 - a);
            if (seen.add((long) a * NODES + b) && !to.get(a).contains(b)) {
                to.get(a).add(b);
                extra++;
            }
        }
        dense = nodes(to);
    }

    static List<List<Integer>> edges() {
        List<List<Integer>> to = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            to.add(new ArrayList<>());
        }
        return to;
    }

    static List<OperationGraph.Node> nodes(List<List<Integer>> to) {
        List<OperationGraph.Node> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            nodes.add(new OperationGraph.Node(i, to.get(i), i == 0 ? null : "op", List.of()));
        }
        return nodes;
    }

    @Benchmark
    public int treeOf1000Nodes() {
        return OperationGraph.paths(tree, operations, CAP).size();
    }

    @Benchmark
    public int ladderOf1000NodesWith8658Paths() {
        return OperationGraph.paths(ladder, operations, CAP).size();
    }

    @Benchmark
    public String denseSetRefusedAtTheCap() {
        try {
            OperationGraph.paths(dense, operations, CAP);
            throw new IllegalStateException("the dense set was not refused");
        } catch (GraphException e) {
            return e.getMessage();
        }
    }

    public static void main(String[] args) throws Exception {
        OperationGraphBenchmark b = new OperationGraphBenchmark();
        b.setUp();
        System.out.printf("tree: %d paths; ladder: %d paths; dense: %s%n", b.treeOf1000Nodes(), b.ladderOf1000NodesWith8658Paths(),
                b.denseSetRefusedAtTheCap());
        new Runner(new OptionsBuilder().include(OperationGraphBenchmark.class.getSimpleName()).build()).run();
    }
}
