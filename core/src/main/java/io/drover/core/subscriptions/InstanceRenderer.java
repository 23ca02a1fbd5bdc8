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
 *
 * <p>A context value that references a secret ({@link SecretReferences}) is put in the context as data after the
 * other values are rendered: a secret is never parsed as a template. Its step and every later one (which see it in
 * {@code step_data}) carry a stamp of the secrets in their reach, so that their digests change when a secret does.
 */
public final class InstanceRenderer {
    /** One step to render: its package metadata, template sources (by source path) and params context. */
    public record StepInput(String stepId, PackageMetadata metadata, Map<String, String> templateSources,
                            List<String> templateNames, Map<String, Object> paramsContext,
                            Map<String, SecretReferences.SecretValue> secrets) {
        public StepInput(String stepId, PackageMetadata metadata, Map<String, String> templateSources,
                         List<String> templateNames, Map<String, Object> paramsContext) {
            this(stepId, metadata, templateSources, templateNames, paramsContext, Map.of());
        }

        /** The same step with each secret's value given by {@code values} (secret name → value). */
        public StepInput withSecretValues(java.util.function.UnaryOperator<String> values) {
            Map<String, SecretReferences.SecretValue> revealed = new LinkedHashMap<>();
            secrets.forEach((key, secret) -> revealed.put(key, secret.withValue(values.apply(secret.name()))));
            return new StepInput(stepId, metadata, templateSources, templateNames, paramsContext, revealed);
        }
    }

    /**
     * The rendered files of one step (path relative to the agent root → content), or why it failed; {@code secretStamp}
     * names the secrets in the step's reach and their versions (null when there are none).
     */
    public record RenderedStep(Map<String, String> files, String error, String secretStamp) {
        public static RenderedStep of(Map<String, String> files) {
            return new RenderedStep(Map.copyOf(files), null, null);
        }

        public static RenderedStep failed(String error) {
            return new RenderedStep(Map.of(), error, null);
        }

        /**
         * What a file's digest is made of: its content, followed by the secret stamp when secrets are in reach. A
         * digest of a render with {@link SecretReferences#REDACTED} in place of the secrets then still changes when
         * a secret changes, and says nothing of its value.
         */
        public Map<String, String> digestContents() {
            if (secretStamp == null) {
                return files;
            }
            Map<String, String> stamped = new LinkedHashMap<>();
            files.forEach((path, content) -> stamped.put(path, content + "\u0000secrets " + secretStamp));
            return stamped;
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
        StringBuilder stamp = new StringBuilder();
        for (StepInput step : steps) {
            ControlInfo control = controlInfo(instance, step, ports.get(step.stepId()));
            step.secrets().forEach((key, secret) -> stamp.append(stamp.isEmpty() ? "" : " ").append(step.stepId()).append('.')
                    .append(key).append('=').append(secret.name()).append('@').append(secret.stamp()));
            try {
                Map<String, Object> params = params(step, RenderContext.forParams(base, control));
                Map<String, Object> context = RenderContext.withStep(base, step.stepId(), control, params);
                Map<String, String> files = new LinkedHashMap<>();
                for (ConfigTemplate t : templates(step)) {
                    String path = "official".equals(step.metadata().category())
                            ? DeployPaths.officialConfig(t.path(), t.name(), instance.groupId())
                            : DeployPaths.externalConfig(instance.groupId(), step.metadata().name(), t.path(), t.name());
                    files.put(path, renderer.render(t.name(), step.templateSources().get(t.source()), context));
                }
                out.put(step.stepId(), new RenderedStep(Map.copyOf(files), null, stamp.isEmpty() ? null : stamp.toString()));
            } catch (RenderException e) {
                out.put(step.stepId(), RenderedStep.failed("step " + step.stepId() + ": " + e.getMessage()));
            }
        }
        return out;
    }

    /** The step's context rendered, in its order, with each secret put in as data (never rendered). */
    private Map<String, Object> params(StepInput step, Map<String, Object> context) {
        Map<String, Object> values = withDefaults(step);
        Map<String, Object> plain = new LinkedHashMap<>(values);
        plain.keySet().removeAll(step.secrets().keySet());
        Map<String, Object> rendered = renderer.renderValues(step.stepId(), plain, context);
        Map<String, Object> params = new LinkedHashMap<>();
        for (String key : values.keySet()) {
            SecretReferences.SecretValue secret = step.secrets().get(key);
            params.put(key, secret != null ? secret.value() : rendered.get(key));
        }
        return params;
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
