package io.drover.core.subscriptions;

import io.drover.core.render.RenderException;
import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.RenderContext.ControlInfo;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.packages.PackageMetadata.ConfigTemplate;
import io.drover.model.subscriptions.SubscriptionSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders every step of one instance, in step order: first the step's params context (its values may be
 * templates), then its config templates, each to the path the seed gives it. A step that fails to render carries the
 * error (template name, line, message) and the later steps still render.
 */
public final class InstanceRenderer {
    /** One step to render: its package metadata, template sources (by source path) and params context. */
    public record StepInput(String stepId, PackageMetadata metadata, Map<String, String> templateSources,
                            List<String> templateNames, Map<String, Object> paramsContext) {
    }

    /** The rendered files of one step (path relative to the agent root → content), or why it failed. */
    public record RenderedStep(Map<String, String> files, String error) {
        public static RenderedStep of(Map<String, String> files) {
            return new RenderedStep(Map.copyOf(files), null);
        }

        public static RenderedStep failed(String error) {
            return new RenderedStep(Map.of(), error);
        }
    }

    private final TemplateRenderer renderer;

    public InstanceRenderer(TemplateRenderer renderer) {
        this.renderer = renderer;
    }

    /** {@code ports}: step id → the port allocated to this instance's copy (absent when none yet). */
    public Map<String, RenderedStep> render(ScopeInstance instance, SubscriptionSpec.Scope scope, List<StepInput> steps,
                                            Map<String, Integer> ports) {
        Map<String, Object> base = RenderContext.base(instance, scope);
        Map<String, RenderedStep> out = new LinkedHashMap<>();
        for (StepInput step : steps) {
            ControlInfo control = controlInfo(instance, step, ports.get(step.stepId()));
            try {
                Map<String, Object> params = renderer.renderValues(step.stepId(), withDefaults(step),
                        RenderContext.forParams(base, control));
                Map<String, Object> context = RenderContext.withStep(base, step.stepId(), control, params);
                Map<String, String> files = new LinkedHashMap<>();
                for (ConfigTemplate t : templates(step)) {
                    String path = "official".equals(step.metadata().category())
                            ? DeployPaths.officialConfig(t.path(), t.name(), instance.groupId())
                            : DeployPaths.externalConfig(instance.groupId(), step.metadata().name(), t.path(), t.name());
                    files.put(path, renderer.render(t.name(), step.templateSources().get(t.source()), context));
                }
                out.put(step.stepId(), RenderedStep.of(files));
            } catch (RenderException e) {
                out.put(step.stepId(), RenderedStep.failed("step " + step.stepId() + ": " + e.getMessage()));
            }
        }
        return out;
    }

    /** The step's context over the defaults its package's parameter schema declares. */
    static Map<String, Object> withDefaults(StepInput step) {
        Map<String, Object> context = new LinkedHashMap<>();
        if (step.metadata().parameters().get("properties") instanceof Map<?, ?> properties) {
            properties.forEach((name, schema) -> {
                if (schema instanceof Map<?, ?> s && s.get("default") != null) {
                    context.put(String.valueOf(name), s.get("default"));
                }
            });
        }
        context.putAll(step.paramsContext());
        return context;
    }

    /** The step's chosen templates (all of the package's when the step names none). */
    static List<ConfigTemplate> templates(StepInput step) {
        return templatesOf(step.metadata(), step.templateNames());
    }

    public static List<ConfigTemplate> templatesOf(PackageMetadata metadata, List<String> names) {
        if (names.isEmpty()) {
            return metadata.configTemplates();
        }
        return metadata.configTemplates().stream().filter(t -> names.contains(t.name())).toList();
    }

    static ControlInfo controlInfo(ScopeInstance instance, StepInput step, Integer port) {
        String plugin = step.metadata().name();
        String setup = "/" + ("official".equals(step.metadata().category()) ? DeployPaths.officialBin()
                : DeployPaths.externalDir(instance.groupId(), plugin));
        return new ControlInfo(instance.host().bkHostInnerip(), port, instance.groupId(), setup,
                "/var/log/gse/" + plugin + "_" + instance.groupId(), "/var/lib/gse/" + plugin + "_" + instance.groupId(),
                "/var/run/gse/" + plugin + "_" + instance.groupId() + ".pid");
    }
}
