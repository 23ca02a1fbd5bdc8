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
        long count = countPaths(successors);
        if (count > maxPaths) {
            throw new GraphException("the operation set has " + (count == Long.MAX_VALUE ? "too many" : Long.toString(count))
                    + " paths, more than the limit of " + maxPaths);
        }
        return enumerate(successors, predecessors);
    }

    /** The reference's breadth-first enumeration with ascending ids. */
    private static List<List<Integer>> enumerate(List<TreeSet<Integer>> successors, List<TreeSet<Integer>> predecessors) {
        int n = successors.size();
        boolean[] visited = new boolean[n];
        List<List<List<Integer>>> cache = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cache.add(new ArrayList<>());
        }
        visited[0] = true;
        cache.get(0).add(List.of(0));
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
            for (int predecessor : predecessors.get(current)) {
                for (List<Integer> path : cache.get(predecessor)) {
                    List<Integer> longer = new ArrayList<>(path);
                    longer.add(current);
                    cache.get(current).add(List.copyOf(longer));
                }
            }
            queue.addAll(successors.get(current));
            if (successors.get(current).isEmpty()) {
                sinks.add(current);
            }
        }
        List<List<Integer>> paths = new ArrayList<>();
        sinks.forEach(sink -> paths.addAll(cache.get(sink)));
        return paths;
    }

    /** Paths from node 0 to the sinks, counted without listing them (saturating at Long.MAX_VALUE). */
    private static long countPaths(List<TreeSet<Integer>> successors) {
        int n = successors.size();
        long[] fromHere = new long[n];
        Deque<Integer> order = topologicalOrder(successors);
        while (!order.isEmpty()) {
            int node = order.pollLast();
            long total = successors.get(node).isEmpty() ? 1 : 0;
            for (int next : successors.get(node)) {
                total = total > Long.MAX_VALUE - fromHere[next] ? Long.MAX_VALUE : total + fromHere[next];
            }
            fromHere[node] = total;
        }
        return fromHere[0];
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
