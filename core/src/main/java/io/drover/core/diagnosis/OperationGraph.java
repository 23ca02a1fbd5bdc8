package io.drover.core.diagnosis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * An OperationSet's adjacency list checked and turned into its diagnosis paths, as KubeDiag's graph builder does, with
 * its gaps closed: at least two nodes; node 0 is the start and carries no operation; every other node carries a known
 * operation; edges name existing nodes, never the node itself, each once; node 0 has no incoming edge; no cycle; every
 * node reachable from node 0. Paths run from node 0 to every node without successors; they are enumerated as the
 * reference enumerates them (breadth first, a node once all its predecessors are done) with successors and
 * predecessors taken in ascending id order, so the order is deterministic. More than {@code maxPaths} paths is an error.
 */
public final class OperationGraph {
    /** One node as the adjacency list gives it; {@code id} may be null (it is then its index). */
    public record Node(Integer id, List<Integer> to, String operation, List<Integer> dependences) {
        public Node {
            to = to == null ? List.of() : List.copyOf(to);
            dependences = dependences == null ? List.of() : List.copyOf(dependences);
        }
    }

    private OperationGraph() {
    }

    /** The paths, each a list of node ids starting with 0; a {@link GraphException} when the set cannot run. */
    public static List<List<Integer>> paths(List<Node> nodes, Set<String> operations, int maxPaths) {
        int n = nodes.size();
        if (n < 2) {
            throw new GraphException("must contain at least two nodes");
        }
        List<TreeSet<Integer>> successors = new ArrayList<>();
        List<TreeSet<Integer>> predecessors = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            successors.add(new TreeSet<>());
            predecessors.add(new TreeSet<>());
        }
        for (int i = 0; i < n; i++) {
            Node node = nodes.get(i);
            if (node.id() != null && node.id() != i) {
                throw new GraphException("node at index " + i + " has id " + node.id() + ": ids must be 0, 1, 2… in list order");
            }
            boolean hasOperation = node.operation() != null && !node.operation().isBlank();
            if (i == 0 && (hasOperation || !node.dependences().isEmpty())) {
                throw new GraphException("node 0 is the start node and must not contain any operation or dependences");
            }
            if (i > 0 && !hasOperation) {
                throw new GraphException("node " + i + " has no operation");
            }
            if (i > 0 && !operations.contains(node.operation())) {
                throw new GraphException("node " + i + ": operation '" + node.operation() + "' does not exist");
            }
            for (Integer target : node.to()) {
                if (target == null || target < 0 || target >= n) {
                    throw new GraphException("node " + i + " has an edge to " + target + ", which is not a node (ids are 0 to " + (n - 1) + ")");
                }
                if (target == i) {
                    throw new GraphException("node " + i + " has an edge to itself");
                }
                if (!successors.get(i).add(target)) {
                    throw new GraphException("node " + i + " lists the edge to " + target + " twice");
                }
                predecessors.get(target).add(i);
            }
            for (Integer dependence : node.dependences()) {
                if (dependence == null || dependence < 0 || dependence >= n || dependence == i) {
                    throw new GraphException("node " + i + " depends on " + dependence + ", which is not another node");
                }
            }
        }
        if (!predecessors.get(0).isEmpty()) {
            throw new GraphException("indegree of start node is not 0");
        }
        for (int i = 1; i < n; i++) {
            if (predecessors.get(i).isEmpty()) {
                throw new GraphException("node " + i + " is unreachable from start node");
            }
        }
        List<List<Integer>> cycles = cycles(successors);
        if (!cycles.isEmpty()) {
            throw new GraphException("invalid directed acyclic graph: topo: no topological ordering: cyclic components: "
                    + cycles.toString().replace(",", ""));
        }
        long[] size = countPaths(successors);
        if (size[0] > maxPaths) {
            throw new GraphException("the operation set has " + (size[0] == Long.MAX_VALUE ? "too many" : Long.toString(size[0]))
                    + " paths, more than the limit of " + maxPaths);
        }
        if (size[1] > MAX_PATH_NODES) {
            throw new GraphException("the operation set's " + size[0] + " paths hold " + size[1] + " nodes in all, more than the limit of "
                    + MAX_PATH_NODES);
        }
        return enumerate(successors, predecessors);
    }

    /** The most nodes all paths may hold together (each path counted whole), so that listing them stays small. */
    public static final long MAX_PATH_NODES = 1_000_000;

    /** A path from node 0, as its last node and the path before it: prefixes are shared, not copied. */
    private record Step(int node, Step before) {
    }

    /**
     * The reference's breadth-first enumeration with ascending ids: a node is visited once all its predecessors are,
     * and its paths are each predecessor's paths (in predecessor order) extended by it; the paths of the sinks, in the
     * order the sinks were visited, are the result. A node's paths are dropped once all its successors have theirs.
     */
    private static List<List<Integer>> enumerate(List<TreeSet<Integer>> successors, List<TreeSet<Integer>> predecessors) {
        int n = successors.size();
        boolean[] visited = new boolean[n];
        int[] waitingSuccessors = new int[n];
        for (int i = 0; i < n; i++) {
            waitingSuccessors[i] = successors.get(i).size();
        }
        List<List<Step>> cache = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cache.add(new ArrayList<>());
        }
        visited[0] = true;
        cache.get(0).add(new Step(0, null));
        Deque<Integer> queue = new ArrayDeque<>(successors.get(0));
        List<Integer> sinks = new ArrayList<>();
        while (!queue.isEmpty()) {
            int current = queue.poll();
            if (visited[current]) {
                continue;
            }
            if (predecessors.get(current).stream().anyMatch(p -> !visited[p])) {
                queue.add(current);
                continue;
            }
            visited[current] = true;
            List<Step> mine = cache.get(current);
            for (int predecessor : predecessors.get(current)) {
                for (Step path : cache.get(predecessor)) {
                    mine.add(new Step(current, path));
                }
                if (--waitingSuccessors[predecessor] == 0) {
                    cache.set(predecessor, null);
                }
            }
            queue.addAll(successors.get(current));
            if (successors.get(current).isEmpty()) {
                sinks.add(current);
            }
        }
        List<List<Integer>> paths = new ArrayList<>();
        for (int sink : sinks) {
            for (Step last : cache.get(sink)) {
                int length = 0;
                for (Step step = last; step != null; step = step.before()) {
                    length++;
                }
                Integer[] path = new Integer[length];
                for (Step step = last; step != null; step = step.before()) {
                    path[--length] = step.node();
                }
                paths.add(List.of(path));
            }
        }
        return paths;
    }

    /**
     * How many paths lead from node 0 to the sinks, and how many nodes they hold together, counted without listing
     * them (each saturating at Long.MAX_VALUE).
     */
    private static long[] countPaths(List<TreeSet<Integer>> successors) {
        int n = successors.size();
        long[] paths = new long[n];
        long[] nodes = new long[n];
        Deque<Integer> order = topologicalOrder(successors);
        while (!order.isEmpty()) {
            int node = order.pollLast();
            long count = successors.get(node).isEmpty() ? 1 : 0;
            long held = 0;
            for (int next : successors.get(node)) {
                count = add(count, paths[next]);
                held = add(held, nodes[next]);
            }
            paths[node] = count;
            nodes[node] = add(held, count);
        }
        return new long[] {paths[0], nodes[0]};
    }

    private static long add(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }

    private static Deque<Integer> topologicalOrder(List<TreeSet<Integer>> successors) {
        int n = successors.size();
        int[] indegree = new int[n];
        successors.forEach(s -> s.forEach(t -> indegree[t]++));
        Deque<Integer> ready = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (indegree[i] == 0) {
                ready.add(i);
            }
        }
        Deque<Integer> order = new ArrayDeque<>();
        while (!ready.isEmpty()) {
            int node = ready.poll();
            order.add(node);
            for (int next : successors.get(node)) {
                if (--indegree[next] == 0) {
                    ready.add(next);
                }
            }
        }
        return order;
    }

    /** The strongly connected components of more than one node (Tarjan, iterative), each sorted, in ascending order. */
    static List<List<Integer>> cycles(List<TreeSet<Integer>> successors) {
        int n = successors.size();
        int[] index = new int[n];
        int[] low = new int[n];
        boolean[] onStack = new boolean[n];
        java.util.Arrays.fill(index, -1);
        Deque<Integer> stack = new ArrayDeque<>();
        List<List<Integer>> components = new ArrayList<>();
        int counter = 0;
        for (int start = 0; start < n; start++) {
            if (index[start] >= 0) {
                continue;
            }
            Deque<int[]> work = new ArrayDeque<>();
            work.push(new int[] {start, 0});
            while (!work.isEmpty()) {
                int[] frame = work.peek();
                int node = frame[0];
                if (frame[1] == 0 && index[node] < 0) {
                    index[node] = low[node] = counter++;
                    stack.push(node);
                    onStack[node] = true;
                }
                List<Integer> next = new ArrayList<>(successors.get(node));
                if (frame[1] < next.size()) {
                    int target = next.get(frame[1]++);
                    if (index[target] < 0) {
                        work.push(new int[] {target, 0});
                    } else if (onStack[target]) {
                        low[node] = Math.min(low[node], index[target]);
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    int parent = work.peek()[0];
                    low[parent] = Math.min(low[parent], low[node]);
                }
                if (low[node] == index[node]) {
                    Set<Integer> component = new HashSet<>();
                    int member;
                    do {
                        member = stack.pop();
                        onStack[member] = false;
                        component.add(member);
                    } while (member != node);
                    if (component.size() > 1) {
                        components.add(new ArrayList<>(new TreeSet<>(component)));
                    }
                }
            }
        }
        components.sort((a, b) -> Integer.compare(a.get(0), b.get(0)));
        return components;
    }
}
