package io.drover.model.subscriptions;

import java.util.List;
import java.util.Map;

/**
 * A subscription as operators write it, in NodeMan's field names (docs/operations.md, "Subscriptions"): what to deploy ({@code steps}),
 * onto which CMDB objects ({@code scope}), optionally on fixed {@code target_hosts} (set at creation only).
 */
public record SubscriptionSpec(
        String name,
        Scope scope,
        List<Step> steps,
        List<Node> targetHosts,
        Boolean runImmediately,
        Boolean enable,
        Integer batchSize,
        Double maxFailureRatio) {

    public SubscriptionSpec {
        steps = steps == null ? List.of() : List.copyOf(steps);
    }

    /** HOST or SERVICE objects, from TOPO nodes (business, set, module) or INSTANCE nodes (hosts or services). */
    public record Scope(Long bkBizId, String objectType, String nodeType, List<Node> nodes,
                        Map<String, Object> instanceSelector) {
        public Scope {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
            instanceSelector = instanceSelector == null ? Map.of() : instanceSelector;
        }
    }

    /**
     * A scope node. TOPO: {@code bk_obj_id} (biz, set, module) and {@code bk_inst_id}. INSTANCE: a host by
     * {@code bk_host_id} or {@code ip} + {@code bk_cloud_id}, or a service instance by {@code id}. Any node may name
     * its own {@code bk_biz_id}.
     */
    public record Node(String bkObjId, Long bkInstId, Long bkBizId, Long bkHostId, String ip, Long bkCloudId, Long id) {
    }

    /** One plugin to deploy: {@code type} PLUGIN; {@code params.context} is the render context it adds. */
    public record Step(String id, String type, StepConfig config, StepParams params) {
    }

    /** {@code config_templates} lists the templates of the package to deploy (all of them when absent). */
    public record StepConfig(String pluginName, String pluginVersion, List<TemplateRef> configTemplates) {
        public StepConfig {
            configTemplates = configTemplates == null ? List.of() : List.copyOf(configTemplates);
        }
    }

    public record TemplateRef(String name, String version) {
    }

    public record StepParams(Map<String, Object> context) {
        public StepParams {
            context = context == null ? Map.of() : context;
        }
    }
}
