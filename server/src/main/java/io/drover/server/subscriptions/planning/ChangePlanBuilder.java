package io.drover.server.subscriptions.planning;

import io.drover.server.subscriptions.DeploymentStore;
import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PortRange;
import io.drover.core.packages.Version;
import io.drover.core.render.TemplateLinter;
import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.InstanceRenderer;
import io.drover.core.subscriptions.InstanceRenderer.RenderedStep;
import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.InventorySnapshot;
import io.drover.core.subscriptions.ChangePlanner;
import io.drover.core.subscriptions.ChangePlanner.Departed;
import io.drover.core.subscriptions.ChangePlanner.Departure;
import io.drover.core.subscriptions.ChangePlanner.Desired;
import io.drover.core.subscriptions.ChangePlanRendering;
import io.drover.core.subscriptions.RenderCache;
import io.drover.core.subscriptions.RenderContext;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.core.subscriptions.ScopeResolver;
import io.drover.core.subscriptions.SecretReferences;
import io.drover.core.subscriptions.StepFiles;
import io.drover.core.packages.ParamsSchema;
import io.drover.server.secrets.SecretStore;
import java.util.function.UnaryOperator;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata.ConfigTemplate;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.server.errors.DomainException;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.TopoFilter;
import io.drover.server.packages.PackageStore;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;

/**
 * Gathers what the planner needs for one subscription (the package of each step, the scope's instances from the
 * CMDB, their rendered files, what is deployed, which agents answer) and runs it. Changes nothing.
 */
public final class ChangePlanBuilder {
    /**
     * A step with the stored package it deploys, that package's template sources, the secrets its context references
     * (context key → name and stamp, valued {@link SecretReferences#REDACTED}) and what reads their values.
     */
    public record StepPackage(SubscriptionSpec.Step step, PackageInfo pkg, Map<String, String> templateSources,
                              Map<String, SecretReferences.SecretValue> secrets, UnaryOperator<String> secretValues) {
        public StepPackage(SubscriptionSpec.Step step, PackageInfo pkg, Map<String, String> templateSources) {
            this(step, pkg, templateSources, Map.of(), name -> {
                throw new IllegalStateException("step " + step.id() + " references no secret");
            });
        }

        /** What the renderer needs of this step, as planning renders it: secrets redacted. */
        public StepInput input() {
            return new StepInput(step.id(), pkg.metadata(), templateSources,
                    step.config().configTemplates().stream().map(SubscriptionSpec.TemplateRef::name).toList(),
                    step.params() == null ? Map.of() : step.params().context(), secrets);
        }

        /** As {@link #input()} with the secrets' values: only to build the jobs that push the files to agents. */
        public StepInput sentInput() {
            return secrets.isEmpty() ? input() : input().withSecretValues(secretValues);
        }
    }

    /**
     * A plan with everything execution needs: instances, their files (rendered again when a step needs them; the plan
     * keeps their md5s only), packages, agents, deployed rows, and the businesses its task may act in: the
     * subscription's, and for a deletion also those its copies' hosts have moved to (it removes its own copies there).
     */
    public record Prepared(SubscriptionInfo subscription, ChangePlanner.Plan plan, Map<String, ScopeInstance> instances,
                           InstanceFiles files, Map<String, StepPackage> packages,
                           Map<Long, String> agents, List<DeploymentStore.Row> deployed, List<String> missing,
                           Map<Long, Host> hosts, Set<Long> businesses) {
    }

    /** Renders what one step of an instance pushes, as planning rendered it (same inputs and ports). */
    @FunctionalInterface
    public interface InstanceFiles {
        /** The step's files: as sent (with the secrets' values) and as shown. */
        StepFiles of(ScopeInstance instance, String stepId);
    }

    private final Jdbi jdbi;
    private final InventoryStore repository;
    private final PackageStore packages;
    private final DeploymentStore deployments;
    private final AgentDirectory agents;
    private final SecretStore secrets;
    private final TemplateRenderer templates = new TemplateRenderer();
    private final InstanceRenderer renderer = new InstanceRenderer(templates);
    private final TemplateLinter linter = new TemplateLinter(templates);
    private final Map<Long, RenderCache> caches = new java.util.concurrent.ConcurrentHashMap<>();

    public ChangePlanBuilder(Jdbi jdbi, InventoryStore repository, PackageStore packages, DeploymentStore deployments,
                       AgentDirectory agents, SecretStore secrets) {
        this.secrets = secrets;
        this.jdbi = jdbi;
        this.repository = repository;
        this.packages = packages;
        this.deployments = deployments;
        this.agents = agents;
    }

    public Prepared prepare(SubscriptionInfo sub) {
        return prepare(sub, stepPackages(sub.spec()), false);
    }

    /** As {@link #prepare(SubscriptionInfo)}, with the step packages already read and checked for this spec. */
    public Prepared prepare(SubscriptionInfo sub, Map<String, StepPackage> steps) {
        return prepare(sub, steps, false);
    }

    /** The plan that deletes the subscription: every copy it deployed is uninstalled (its scope is taken as empty). */
    public Prepared prepareDeletion(SubscriptionInfo sub) {
        SubscriptionSpec s = sub.spec();
        SubscriptionSpec empty = new SubscriptionSpec(s.name(), new SubscriptionSpec.Scope(sub.bkBizId(), sub.objectType(),
                "INSTANCE", List.of(), Map.of()), s.steps(), s.targetHosts(), null, true, s.batchSize(), s.maxFailureRatio());
        return prepare(new SubscriptionInfo(sub.id(), sub.name(), sub.bkBizId(), sub.objectType(), "INSTANCE", true, empty,
                sub.createdAt(), sub.updatedAt()), stepPackages(empty), true);
    }

    private Prepared prepare(SubscriptionInfo sub, Map<String, StepPackage> steps, boolean deleting) {
        SubscriptionSpec spec = sub.spec();
        InventorySnapshot inventory = snapshot(spec);
        RenderCache cache = caches.computeIfAbsent(sub.id(), k -> new RenderCache());
        ScopeResolver.Resolution resolution = ScopeResolver.resolve(sub.id(), spec, inventory, cache::known);
        List<DeploymentStore.Row> deployed = deployments.of(sub.id());
        Map<Long, String> agentsByHost = agents.agentsByHost();
        Map<String, ScopeInstance> instances = new LinkedHashMap<>();
        for (ScopeInstance instance : resolution.instances()) {
            instances.put(instance.instanceId(), instance);
        }
        Map<String, Map<String, Integer>> ports = new HashMap<>();
        for (DeploymentStore.Row r : deployed) {
            if (r.port() != null) {
                ports.computeIfAbsent(r.instanceId(), k -> new HashMap<>()).put(r.stepId(), r.port());
            }
        }
        List<StepInput> inputs = steps.values().stream().map(StepPackage::input).toList();
        ChangePlanRendering rendering = new ChangePlanRendering(renderer, spec.scope(), inputs, ports, provisionalPorts(steps), cache);
        // Each instance's md5s are made as the planner reaches it, not all held at once.
        Stream<Desired> desired = resolution.instances().parallelStream().map(instance -> {
            Set<Long> offline = new TreeSet<>();
            for (long host : instance.targetHosts()) {
                if (!agents.online(agentsByHost.get(host))) {
                    offline.add(host);
                }
            }
            return new Desired(instance.instanceId(), new HashSet<>(instance.targetHosts()), offline,
                    rendering.desiredSteps(instance));
        });
        List<Departed> departed = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Set<Long> businesses = new TreeSet<>(Set.of(sub.bkBizId()));
        for (DeploymentStore.Row r : deployed) {
            if (!instances.containsKey(r.instanceId()) && seen.add(r.instanceId())) {
                Host host = jdbi.withHandle(h -> repository.host(h, r.hostId())).orElse(null);
                departed.add(departed(r, host, deployed, agentsByHost, deleting));
                if (deleting && host != null && host.bkBizId() != null) {
                    businesses.add(host.bkBizId());
                }
            }
        }
        List<ChangePlanner.StepSpec> stepSpecs = steps.values().stream()
                .map(sp -> new ChangePlanner.StepSpec(sp.step().id(), sp.pkg().version())).toList();
        ChangePlanner.Plan plan = ChangePlanner.plan(sub.enabled(), stepSpecs, desired, DeploymentStore.byInstance(deployed), departed);
        rendering.retain(resolution.instances());
        Map<Long, Host> hosts = new HashMap<>();
        for (ScopeInstance i : instances.values()) {
            hosts.put(i.host().bkHostId(), i.host());
        }
        return new Prepared(sub, plan, instances, files(rendering, steps), steps, agentsByHost, deployed, resolution.missing(), hosts,
                Set.copyOf(businesses));
    }

    private static InstanceFiles files(ChangePlanRendering rendering, Map<String, StepPackage> steps) {
        return (instance, stepId) -> {
            RenderedStep shown = rendering.files(instance).get(stepId);
            if (shown == null || shown.error() != null) {
                // Planning rendered this step without an error, and rendering is deterministic: not expected.
                throw new IllegalStateException(shown == null ? "step " + stepId + " has no files" : shown.error());
            }
            if (shown.secretStamp() == null) {
                return StepFiles.plain(shown.files());
            }
            RenderedStep sent = rendering.files(instance, steps.values().stream().map(StepPackage::sentInput).toList()).get(stepId);
            return StepFiles.sent(sent, shown);
        };
    }

    /** A departed instance left the business when its host ({@code host}, null when gone) now belongs to another one. */
    private Departed departed(DeploymentStore.Row row, Host host, List<DeploymentStore.Row> deployed, Map<Long, String> agentsByHost,
                              boolean deleting) {
        boolean outOfBusiness = host != null && host.bkBizId() != null && host.bkBizId() != row.bizId();
        Departure why = deleting ? Departure.SUBSCRIPTION_DELETED : outOfBusiness ? Departure.LEFT_BUSINESS : Departure.LEFT_SCOPE;
        Set<Long> offline = new TreeSet<>();
        deployed.stream().filter(r -> r.instanceId().equals(row.instanceId())).forEach(r -> {
            if (!agents.online(agentsByHost.get(r.hostId()))) {
                offline.add(r.hostId());
            }
        });
        return new Departed(row.instanceId(), why, offline);
    }

    /** For planning only: a copy without a port yet renders with the first port of its range. */
    private static Map<String, Integer> provisionalPorts(Map<String, StepPackage> steps) {
        Map<String, Integer> ports = new HashMap<>();
        steps.forEach((id, sp) -> {
            if (sp.pkg().metadata().portRange() != null) {
                ports.put(id, PortRange.parse(sp.pkg().metadata().portRange()).ports().getFirst());
            }
        });
        return ports;
    }

    /** Each step's stored package ({@code latest}: the highest stored version) with its template sources. */
    public Map<String, StepPackage> stepPackages(SubscriptionSpec spec) {
        Map<String, StepPackage> out = new LinkedHashMap<>();
        for (SubscriptionSpec.Step step : spec.steps()) {
            String plugin = step.config().pluginName();
            String wanted = step.config().pluginVersion();
            List<PackageInfo> versions = packages.list(plugin);
            PackageInfo pkg;
            if (wanted == null || wanted.equals("latest")) {
                pkg = versions.stream().max((a, b) -> Version.parse(a.version()).compareTo(Version.parse(b.version())))
                        .orElseThrow(() -> DomainException.invalid("steps." + step.id() + ".config.plugin_name",
                                "plugin " + plugin + " has no package in the store; upload it (drover plugin upload) or enable its addon"));
            } else {
                pkg = packages.find(plugin, wanted).orElseThrow(() -> DomainException.invalid("steps." + step.id()
                        + ".config.plugin_version", "plugin " + plugin + " " + wanted + " is not in the store; stored: "
                        + versions.stream().map(PackageInfo::version).toList()));
            }
            Set<String> knownTemplates = new HashSet<>();
            pkg.metadata().configTemplates().forEach(t -> knownTemplates.add(t.name()));
            for (SubscriptionSpec.TemplateRef ref : step.config().configTemplates()) {
                if (!knownTemplates.contains(ref.name())) {
                    throw DomainException.invalid("steps." + step.id() + ".config.config_templates", "plugin " + plugin + " "
                            + pkg.version() + " has no config template '" + ref.name() + "'; it has " + new TreeSet<>(knownTemplates));
                }
            }
            Set<String> sources = new HashSet<>();
            pkg.metadata().configTemplates().stream().map(ConfigTemplate::source).forEach(sources::add);
            Map<String, String> texts = PackageArchive.texts(new ByteArrayInputStream(packages.read(plugin, pkg.version())), sources);
            StepPackage sp = withSecrets(spec.scope().bkBizId(), new StepPackage(step, pkg, texts));
            lint(sp, out.keySet());
            out.put(step.id(), sp);
        }
        return out;
    }

    /**
     * The step with the secrets its context references, each checked: well formed, stored in the subscription's
     * business, and every parameter the package marks secret given as a reference, never in clear.
     */
    private StepPackage withSecrets(Long biz, StepPackage sp) {
        Map<String, Object> context = sp.step().params() == null ? Map.of() : sp.step().params().context();
        String field = "steps." + sp.step().id() + ".params.context";
        List<io.drover.model.api.Problem.FieldError> problems = new ArrayList<>(SecretReferences.problems(field, context,
                ParamsSchema.of(sp.pkg().metadata().parameters()).secrets(), sp.pkg().metadata().name()));
        Map<String, String> names = SecretReferences.of(context);
        if (!problems.isEmpty()) {
            throw DomainException.invalid(problems);
        }
        if (names.isEmpty()) {
            return sp;
        }
        long business = biz == null ? -1 : biz;
        Map<String, String> stamps = secrets.stamps(business, names.values());
        Map<String, SecretReferences.SecretValue> values = new LinkedHashMap<>();
        names.forEach((key, name) -> {
            if (!stamps.containsKey(name)) {
                problems.add(new io.drover.model.api.Problem.FieldError(field + "." + key, "no secret '" + name
                        + "' in business " + biz + "; set it first: drover secret set " + name + " --biz " + biz));
            } else {
                values.put(key, new SecretReferences.SecretValue(name, SecretReferences.REDACTED, stamps.get(name)));
            }
        });
        if (!problems.isEmpty()) {
            throw DomainException.invalid(problems);
        }
        return new StepPackage(sp.step(), sp.pkg(), sp.templateSources(), values, name -> secrets.open(business, name));
    }

    /**
     * Templates are checked when a subscription is registered: a top-level variable that neither the render context,
     * the package's parameters nor the step's context provides is a 422 naming the template and line.
     */
    private void lint(StepPackage sp, Set<String> earlierSteps) {
        Set<String> known = new HashSet<>(List.of("cmdb_instance", "target", "step_data", "control_info", "context"));
        if (sp.pkg().metadata().parameters().get("properties") instanceof Map<?, ?> props) {
            props.keySet().forEach(k -> known.add(String.valueOf(k)));
        }
        if (sp.step().params() != null) {
            known.addAll(sp.step().params().context().keySet());
        }
        List<io.drover.model.api.Problem.FieldError> contextErrors = new ArrayList<>();
        if (sp.step().params() != null) {
            sp.step().params().context().forEach((key, value) -> contextSyntax("steps." + sp.step().id() + ".params.context."
                    + key, value, contextErrors));
        }
        if (!contextErrors.isEmpty()) {
            throw DomainException.invalid(contextErrors);
        }
        List<String> problems = new ArrayList<>();
        for (ConfigTemplate t : InstanceRenderer.templatesOf(sp.pkg().metadata(),
                sp.step().config().configTemplates().stream().map(SubscriptionSpec.TemplateRef::name).toList())) {
            String source = sp.templateSources().get(t.source());
            if (source != null) {
                problems.addAll(linter.lint(t.name(), source, known));
            }
        }
        if (!problems.isEmpty()) {
            throw DomainException.invalid(problems.stream().map(p -> new io.drover.model.api.Problem.FieldError(
                    "steps." + sp.step().id() + ".config_templates", p)).toList());
        }
    }

    /**
     * Context values are templates too (rendered per instance, before the step's templates, with only
     * {@link RenderContext#PARAMS_NAMES}): a syntax error or a variable nothing provides is refused at registration.
     */
    private void contextSyntax(String field, Object value, List<io.drover.model.api.Problem.FieldError> errors) {
        switch (value) {
            case String text -> {
                List<String> syntax = templates.syntaxErrors(text);
                List<String> found = syntax.isEmpty() && text.contains("{")
                        ? linter.lint(field, text, RenderContext.PARAMS_NAMES) : syntax;
                found.forEach(e -> errors.add(new io.drover.model.api.Problem.FieldError(field, e)));
            }
            case Map<?, ?> map -> map.forEach((k, v) -> contextSyntax(field + "." + k, v, errors));
            case List<?> list -> {
                for (int i = 0; i < list.size(); i++) {
                    contextSyntax(field + "[" + i + "]", list.get(i), errors);
                }
            }
            case null, default -> { }
        }
    }

    /**
     * The scope's business (and no other: {@link ScopeResolver} plans nothing outside it), and the target hosts
     * wherever they are, so that one that moved away is reported as outside it.
     */
    private InventorySnapshot snapshot(SubscriptionSpec spec) {
        long biz = spec.scope().bkBizId();
        return jdbi.inTransaction(h -> {
            List<Host> hosts = new ArrayList<>(repository.allHosts(h, TopoFilter.business(biz)));
            List<TopoModule> modules = new ArrayList<>(repository.modules(h, biz, null, null));
            List<ServiceInstance> services = new ArrayList<>();
            if ("SERVICE".equals(spec.scope().objectType())) {
                services.addAll(repository.serviceInstances(h, TopoFilter.business(biz), 0, 1_000_000).items());
            }
            if (spec.targetHosts() != null) {
                for (SubscriptionSpec.Node n : spec.targetHosts()) {
                    Long id = n.bkHostId() != null ? n.bkHostId()
                            : repository.hostIdByAddress(h, n.bkCloudId() == null ? 0 : n.bkCloudId(), n.ip()).orElse(null);
                    if (id != null && hosts.stream().noneMatch(x -> x.bkHostId().equals(id))) {
                        repository.host(h, id).ifPresent(hosts::add);
                    }
                }
            }
            return new InventorySnapshot(hosts, modules, services);
        });
    }
}
