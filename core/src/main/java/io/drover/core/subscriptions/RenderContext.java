package io.drover.core.subscriptions;

import io.drover.core.render.PyNone;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables a config template sees (docs/operations.md, "Subscriptions"): {@code cmdb_instance} (also {@code target}) with
 * {@code host}, {@code service}, {@code scope} and {@code process}; {@code step_data.<step>} with each step's
 * rendered {@code context} and {@code control_info}; {@code control_info} of the current step; and the current step's
 * rendered context, also at the top level.
 */
public final class RenderContext {
    /** Where a step's plugin runs on the host and how it is reached. */
    public record ControlInfo(String listenIp, Integer listenPort, String groupId, String setupPath, String logPath,
                              String dataPath, String pidPath) {
        public Map<String, Object> asMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("listen_ip", listenIp);
            m.put("listen_port", listenPort);
            m.put("port", listenPort);
            m.put("group_id", groupId);
            m.put("setup_path", setupPath);
            m.put("log_path", logPath);
            m.put("data_path", dataPath);
            m.put("pid_path", pidPath);
            return m;
        }
    }

    private RenderContext() {
    }

    /** {@code cmdb_instance}: the host (fixed fields and attributes), the service, the scope and the first process. */
    public static Map<String, Object> cmdbInstance(ScopeInstance instance, SubscriptionSpec.Scope scope) {
        Map<String, Object> cmdb = new HashMap<>();
        cmdb.put("host", host(instance.host()));
        ServiceInstance s = instance.service();
        cmdb.put("service", s == null ? Map.of() : service(s));
        cmdb.put("process", s == null || s.processes().isEmpty() ? Map.of() : process(s.processes().getFirst()));
        if (scope != null) {
            Map<String, Object> scopeMap = new HashMap<>();
            scopeMap.put("bk_biz_id", scope.bkBizId());
            scopeMap.put("object_type", scope.objectType());
            scopeMap.put("node_type", scope.nodeType());
            cmdb.put("scope", scopeMap);
        }
        return cmdb;
    }

    /** The base context of one instance (no step yet): {@code cmdb_instance}, {@code target}, empty {@code step_data}. */
    public static Map<String, Object> base(ScopeInstance instance, SubscriptionSpec.Scope scope) {
        Map<String, Object> cmdb = cmdbInstance(instance, scope);
        Map<String, Object> context = new HashMap<>();
        context.put("cmdb_instance", cmdb);
        context.put("target", cmdb);
        context.put("step_data", new LinkedHashMap<String, Object>());
        return context;
    }

    /**
     * The context for rendering one step's templates: {@code base} plus its control info; its own rendered params
     * context is added by the caller with {@link #withStep}.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> withStep(Map<String, Object> base, String stepId, ControlInfo control,
                                               Map<String, Object> renderedContext) {
        Map<String, Object> stepData = (Map<String, Object>) base.get("step_data");
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("context", renderedContext);
        entry.put("control_info", control.asMap());
        stepData.put(stepId, entry);
        Map<String, Object> context = new HashMap<>(base);
        context.putAll(renderedContext);
        context.put("context", renderedContext);
        context.put("control_info", control.asMap());
        return context;
    }

    /** The top-level names a step's params context is rendered with ({@link #forParams}). */
    public static final java.util.Set<String> PARAMS_NAMES = java.util.Set.of("cmdb_instance", "target", "step_data", "control_info");

    /** The base plus the current step's control info, for rendering its params context (which comes first). */
    public static Map<String, Object> forParams(Map<String, Object> base, ControlInfo control) {
        Map<String, Object> context = new HashMap<>(base);
        context.put("control_info", control.asMap());
        return context;
    }

    /** Attributes without a value are Python's {@code None}, which Jinja2 templates print and test. */
    private static Map<String, Object> host(Host h) {
        Map<String, Object> m = new HashMap<>(h.attributes());
        m.replaceAll((k, v) -> PyNone.replaceNulls(v));
        m.put("bk_host_id", h.bkHostId());
        m.put("bk_biz_id", h.bkBizId());
        m.put("bk_host_innerip", h.bkHostInnerip());
        m.put("bk_cloud_id", h.bkCloudId());
        m.put("bk_host_name", h.bkHostName());
        m.put("os_type", h.osType());
        m.put("cpu_arch", h.cpuArch());
        m.put("bk_module_ids", h.bkModuleIds());
        return m;
    }

    private static Map<String, Object> service(ServiceInstance s) {
        Map<String, Object> m = new HashMap<>();
        m.put("id", s.id());
        m.put("name", s.name());
        m.put("bk_module_id", s.bkModuleId());
        m.put("bk_host_id", s.bkHostId());
        m.put("labels", s.labels());
        m.put("processes", s.processes().stream().map(RenderContext::process).toList());
        return m;
    }

    private static Map<String, Object> process(ServiceProcess p) {
        Map<String, Object> m = new HashMap<>();
        m.put("name", p.name());
        m.put("bind_ip", p.bindIp());
        m.put("ports", p.ports());
        m.put("port", p.ports().isEmpty() ? PyNone.NONE : p.ports().getFirst());
        m.put("protocol", p.protocol());
        return m;
    }

    static List<String> roots() {
        return List.of("cmdb_instance", "target", "step_data", "control_info", "context");
    }
}
