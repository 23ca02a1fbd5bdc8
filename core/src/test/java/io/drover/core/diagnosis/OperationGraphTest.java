package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.diagnosis.OperationGraph.Node;
import io.drover.core.testing.ReferenceData;
import io.drover.model.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** KubeDiag's graph cases and sample OperationSets, and every rule Drover adds, with the paths in their order. */
class OperationGraphTest {
    static final Set<String> ANY = Set.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");

    /** A graph given as to-lists; every node but 0 runs operation "a". */
    static List<Node> graph(List<List<Integer>> to) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < to.size(); i++) {
            nodes.add(new Node(i, to.get(i), i == 0 ? null : "a", List.of()));
        }
        return nodes;
    }

    @SuppressWarnings("unchecked")
    static Stream<Arguments> referenceCases() throws Exception {
        Map<String, Map<String, Object>> cases = Json.yaml().readValue(
                ReferenceData.dir("kubediag").resolve("graph-cases.expected.yaml").toFile(), new TypeReference<>() { });
        return cases.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue().get("adjacencyListTo"),
                e.getValue().get("error"), e.getValue().get("pathIds")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("referenceCases")
    void kubediagGraphCases(String name, List<List<Integer>> to, String error, List<List<Integer>> pathIds) {
        if (error == null) {
            assertThat(OperationGraph.paths(graph(to), ANY, 1000)).isEqualTo(pathIds);
        } else {
            String expected = error.startsWith("webhook: ") ? error.substring(9, error.indexOf(" (")) : error;
            assertThatThrownBy(() -> OperationGraph.paths(graph(to), ANY, 1000)).isInstanceOf(GraphException.class)
                    .hasMessage(expected);
        }
    }

    @SuppressWarnings("unchecked")
    static Stream<Arguments> samples() throws Exception {
        Path dir = ReferenceData.dir("kubediag");
        List<Arguments> all = new ArrayList<>();
        try (Stream<Path> files = Stream.concat(Files.list(dir.resolve("config-samples-v0.3.1")), Files.list(dir.resolve("http-operation-v0.3.1")))) {
            for (Path expected : files.filter(p -> p.toString().endsWith(".expected-paths.yaml")).sorted().toList()) {
                Map<String, Object> e = Json.yaml().readValue(expected.toFile(), Map.class);
                all.add(Arguments.of(expected.getFileName().toString(), dir.resolve((String) e.get("source")),
                        (String) e.get("operationSet"), e.get("pathIdsAscendingOrder")));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    @SuppressWarnings("unchecked")
    void kubediagSampleOperationSets(String name, Path source, String operationSet, List<List<Integer>> pathIds) throws Exception {
        List<Node> nodes = null;
        try (var parser = Json.yaml().getFactory().createParser(source.toFile())) {
            var documents = Json.yaml().readValues(parser, Map.class);
            while (documents.hasNext()) {
                Map<String, Object> document = documents.next();
                if ("OperationSet".equals(document.get("kind"))
                        && operationSet.equals(((Map<String, Object>) document.get("metadata")).get("name"))) {
                    nodes = ((List<Map<String, Object>>) ((Map<String, Object>) document.get("spec")).get("adjacencyList")).stream()
                            .map(n -> new Node((Integer) n.get("id"), (List<Integer>) n.get("to"), (String) n.get("operation"),
                                    (List<Integer>) n.get("dependences"))).toList();
                }
            }
        }
        assertThat(nodes).as(operationSet + " in " + source).isNotNull();
        Set<String> operations = nodes.stream().map(Node::operation).filter(o -> o != null).collect(Collectors.toSet());
        assertThat(OperationGraph.paths(nodes, operations, 1000)).isEqualTo(pathIds);
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("self edge", graph(List.of(List.of(1), List.of(1))), "node 1 has an edge to itself"),
                Arguments.of("edge out of range", graph(List.of(List.of(1), List.of(5))), "node 1 has an edge to 5, which is not a node (ids are 0 to 1)"),
                Arguments.of("negative edge", graph(List.of(List.of(-1, 1), List.of())), "node 0 has an edge to -1, which is not a node (ids are 0 to 1)"),
                Arguments.of("edge twice", graph(List.of(List.of(1, 1), List.of())), "node 0 lists the edge to 1 twice"),
                Arguments.of("unknown operation", List.of(new Node(0, List.of(1), null, null), new Node(1, List.of(), "nope", null)),
                        "node 1: operation 'nope' does not exist"),
                Arguments.of("node without operation", List.of(new Node(0, List.of(1), null, null), new Node(1, List.of(), " ", null)),
                        "node 1 has no operation"),
                Arguments.of("start node with an operation", List.of(new Node(0, List.of(1), "a", null), new Node(1, List.of(), "a", null)),
                        "node 0 is the start node and must not contain any operation or dependences"),
                Arguments.of("start node with dependences", List.of(new Node(0, List.of(1), null, List.of(1)), new Node(1, List.of(), "a", null)),
                        "node 0 is the start node and must not contain any operation or dependences"),
                Arguments.of("ids out of order", List.of(new Node(0, List.of(1), null, null), new Node(7, List.of(), "a", null)),
                        "node at index 1 has id 7: ids must be 0, 1, 2… in list order"),
                Arguments.of("bad dependence", List.of(new Node(0, List.of(1), null, null), new Node(1, List.of(), "a", List.of(9))),
                        "node 1 depends on 9, which is not another node"),
                Arguments.of("cycle out of reach of the start", graph(List.of(List.of(1), List.of(), List.of(3), List.of(2))),
                        "invalid directed acyclic graph: topo: no topological ordering: cyclic components: [[2 3]]"),
                Arguments.of("two cycles", graph(List.of(List.of(1, 3), List.of(2), List.of(1), List.of(4), List.of(3))),
                        "invalid directed acyclic graph: topo: no topological ordering: cyclic components: [[1 2] [3 4]]"),
                Arguments.of("the first unreachable node is named", graph(List.of(List.of(1), List.of(), List.of(), List.of())),
                        "node 2 is unreachable from start node"),
                Arguments.of("empty", List.of(), "must contain at least two nodes"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void everyRuleRefusesWithAClearMessage(String rule, List<Node> nodes, String message) {
        assertThatThrownBy(() -> OperationGraph.paths(nodes, ANY, 1000)).isInstanceOf(GraphException.class).hasMessage(message);
    }

    @Test
    void pathsAreCappedBeforeTheyAreListed() {
        // A ladder of 40 diamonds has 2^40 paths: counted, refused, never enumerated.
        List<List<Integer>> to = new ArrayList<>();
        int rungs = 40;
        to.add(List.of(1, 2));
        for (int r = 0; r < rungs; r++) {
            int a = 1 + 3 * r;
            to.add(List.of(a + 2));
            to.add(List.of(a + 2));
            to.add(r == rungs - 1 ? List.of() : List.of(a + 3, a + 4));
        }
        assertThatThrownBy(() -> OperationGraph.paths(graph(to), ANY, 1000)).isInstanceOf(GraphException.class)
                .hasMessage("the operation set has 1099511627776 paths, more than the limit of 1000");
        assertThat(OperationGraph.paths(graph(to.subList(0, 10).stream().map(l -> l.stream().filter(t -> t < 10).toList()).toList()), ANY, 1000))
                .hasSize(8);
    }

    @Test
    void theNodesAllPathsHoldAreCappedToo() {
        // 4 diamonds (16 paths of 9 nodes) and then a chain of 70,000 nodes: few paths, but together over a million nodes.
        List<List<Integer>> to = new ArrayList<>();
        to.add(List.of(1, 2));
        int last = 0;
        for (int r = 0; r < 4; r++) {
            int a = 1 + 3 * r;
            to.add(List.of(a + 2));
            to.add(List.of(a + 2));
            to.add(List.of(a + 3, a + 4));
            last = a + 2;
        }
        to.set(last, List.of(last + 1));
        for (int i = last + 1; i < last + 70_000; i++) {
            to.add(List.of(i + 1));
        }
        to.add(List.of());
        assertThatThrownBy(() -> OperationGraph.paths(graph(to), ANY, 1000)).isInstanceOf(GraphException.class)
                .hasMessage("the operation set's 16 paths hold 1120144 nodes in all, more than the limit of 1000000");
        List<List<Integer>> shorter = new ArrayList<>(to.subList(0, last + 60_000));
        shorter.add(List.of());
        List<List<Integer>> paths = OperationGraph.paths(graph(shorter), ANY, 1000);
        int end = last + 60_000;
        assertThat(paths).hasSize(16);
        assertThat(paths).allSatisfy(p -> assertThat(p).hasSize(60_009).startsWith(0).endsWith(end));
    }

    /** 2,000 random DAGs (ids in random topological order): the same set of paths as a brute-force depth-first search. */
    @Test
    void randomGraphsAgreeWithABruteForceEnumeration() {
        java.util.Random random = new java.util.Random(20261125);
        for (int round = 0; round < 2000; round++) {
            int n = 2 + random.nextInt(11);
            List<Integer> order = new ArrayList<>();
            for (int i = 1; i < n; i++) {
                order.add(i);
            }
            java.util.Collections.shuffle(order, random);
            order.add(0, 0);
            List<java.util.TreeSet<Integer>> to = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                to.add(new java.util.TreeSet<>());
            }
            for (int k = 1; k < n; k++) {
                to.get(order.get(random.nextInt(k))).add(order.get(k));
                for (int j = 0; j < k; j++) {
                    if (random.nextInt(4) == 0) {
                        to.get(order.get(j)).add(order.get(k));
                    }
                }
            }
            List<List<Integer>> lists = to.stream().map(t -> (List<Integer>) new ArrayList<>(t)).toList();
            List<List<Integer>> paths = OperationGraph.paths(graph(lists), ANY, 1_000_000);
            List<List<Integer>> expected = new ArrayList<>();
            walk(lists, new ArrayList<>(List.of(0)), expected);
            assertThat(paths).as("graph %s", lists).hasSameSizeAs(expected).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(OperationGraph.paths(graph(lists), ANY, 1_000_000)).isEqualTo(paths);
        }
    }

    private static void walk(List<List<Integer>> to, List<Integer> path, List<List<Integer>> out) {
        int last = path.get(path.size() - 1);
        if (to.get(last).isEmpty()) {
            out.add(List.copyOf(path));
            return;
        }
        for (int next : to.get(last)) {
            path.add(next);
            walk(to, path, out);
            path.remove(path.size() - 1);
        }
    }

    @Test
    void theSameGraphAlwaysGivesTheSamePathsInTheSameOrder() {
        List<List<Integer>> to = List.of(List.of(3, 1, 2), List.of(4), List.of(4), List.of(4), List.of());
        List<List<Integer>> first = OperationGraph.paths(graph(to), ANY, 1000);
        assertThat(first).containsExactly(List.of(0, 1, 4), List.of(0, 2, 4), List.of(0, 3, 4));
        for (int i = 0; i < 20; i++) {
            assertThat(OperationGraph.paths(graph(to), ANY, 1000)).isEqualTo(first);
        }
    }
}
