package io.drover.core.subscriptions;

import io.drover.core.packages.Version;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.SubscriptionSpec.Node;
import io.drover.model.subscriptions.SubscriptionSpec.Step;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks a subscription body; every problem is returned as {@code field → message}, none is fixed silently. */
public final class SpecValidator {
    /** A bad field and what is wrong with it. */
    public record Problem(String field, String message) {
    }

    private static final Set<String> TOPO_OBJECTS = Set.of("biz", "set", "module");

    private SpecValidator() {
    }

    public static List<Problem> validate(SubscriptionSpec s) {
        List<Problem> problems = new ArrayList<>();
        if (s.name() == null || s.name().isBlank()) {
            problems.add(new Problem("name", "is required"));
        } else if (s.name().length() > 255) {
            problems.add(new Problem("name", "is longer than 255 characters"));
        }
        if (s.scope() == null) {
            problems.add(new Problem("scope", "is required"));
        } else {
            scope(s.scope(), problems);
        }
        if (s.steps().isEmpty()) {
            problems.add(new Problem("steps", "needs at least one step"));
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < s.steps().size(); i++) {
            step("steps[" + i + "]", s.steps().get(i), ids, problems);
        }
        if (s.targetHosts() != null) {
            for (int i = 0; i < s.targetHosts().size(); i++) {
                Node n = s.targetHosts().get(i);
                if (n.bkHostId() == null && n.ip() == null) {
                    problems.add(new Problem("target_hosts[" + i + "]", "needs bk_host_id, or ip and bk_cloud_id"));
                }
            }
        }
        if (s.batchSize() != null && s.batchSize() < 1) {
            problems.add(new Problem("batch_size", "must be at least 1"));
        }
        if (s.maxFailureRatio() != null && (s.maxFailureRatio() < 0 || s.maxFailureRatio() > 1)) {
            problems.add(new Problem("max_failure_ratio", "must be between 0 and 1"));
        }
        return problems;
    }

    private static void scope(SubscriptionSpec.Scope scope, List<Problem> problems) {
        if (scope.bkBizId() == null) {
            problems.add(new Problem("scope.bk_biz_id", "is required"));
        }
        boolean service = "SERVICE".equals(scope.objectType());
        if (!"HOST".equals(scope.objectType()) && !service) {
            problems.add(new Problem("scope.object_type", "must be HOST or SERVICE"));
        }
        boolean topo = "TOPO".equals(scope.nodeType());
        if (!topo && !"INSTANCE".equals(scope.nodeType())) {
            problems.add(new Problem("scope.node_type", "must be TOPO or INSTANCE"));
        }
        if (scope.nodes().isEmpty()) {
            problems.add(new Problem("scope.nodes", "needs at least one node"));
        }
        for (int i = 0; i < scope.nodes().size(); i++) {
            Node n = scope.nodes().get(i);
            String at = "scope.nodes[" + i + "]";
            if (topo && (n.bkObjId() == null || !TOPO_OBJECTS.contains(n.bkObjId()) || n.bkInstId() == null)) {
                problems.add(new Problem(at, "a TOPO node needs bk_obj_id (biz, set or module) and bk_inst_id"));
            } else if (!topo && service && n.id() == null) {
                problems.add(new Problem(at, "a SERVICE INSTANCE node needs the service instance id"));
            } else if (!topo && !service && n.bkHostId() == null && n.ip() == null) {
                problems.add(new Problem(at, "a HOST INSTANCE node needs bk_host_id, or ip and bk_cloud_id"));
            }
        }
    }

    private static void step(String at, Step step, Set<String> ids, List<Problem> problems) {
        if (step.id() == null || step.id().isBlank() || !step.id().matches("[A-Za-z0-9_.-]{1,64}")) {
            problems.add(new Problem(at + ".id", "is required: 1-64 letters, digits, '_', '.' or '-'"));
        } else if (!ids.add(step.id())) {
            problems.add(new Problem(at + ".id", "'" + step.id() + "' is used by two steps"));
        }
        if (step.type() != null && !step.type().equals("PLUGIN")) {
            problems.add(new Problem(at + ".type", "must be PLUGIN"));
        }
        if (step.config() == null || step.config().pluginName() == null || step.config().pluginName().isBlank()) {
            problems.add(new Problem(at + ".config.plugin_name", "is required"));
        } else {
            String v = step.config().pluginVersion();
            if (v != null && !v.equals("latest") && Version.tryParse(v) == null) {
                problems.add(new Problem(at + ".config.plugin_version", "'" + v + "' is not a version or 'latest'"));
            }
        }
    }
}
