package io.drover.server.subscriptions.execution;

import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PortRange;
import io.drover.core.subscriptions.DeployPaths;
import io.drover.model.agentapi.AgentCall.FetchFile;
import io.drover.model.agentapi.AgentCall.InstallPackage;
import io.drover.model.agentapi.AgentCall.OperateProcess;
import io.drover.model.agentapi.AgentCall.QueryPackage;
import io.drover.model.agentapi.AgentCall.RegisterProcess;
import io.drover.model.agentapi.AgentCall.RemoveFile;
import io.drover.model.agentapi.AgentCall.RemovePlugin;
import io.drover.model.agentapi.AgentCall.UsedPorts;
import io.drover.model.agentapi.AgentCall.WriteFile;
import io.drover.model.agentapi.AgentResult.InstalledPackage;
import io.drover.model.agentapi.AgentResult.Ports;
import io.drover.model.agentapi.AgentResult.ProcessState;
import io.drover.model.agentapi.ProcessOp;
import io.drover.model.agentapi.ProcessSpec;
import io.drover.core.subscriptions.InstanceRenderer;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.core.subscriptions.SecretReferences;
import io.drover.core.subscriptions.StepFiles;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.CopyStatus;
import java.util.function.Supplier;
import io.drover.model.packages.PackageInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.model.packages.PackageMetadata;
import io.drover.server.jobs.AgentCalls;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The sub-steps of each action, for official and for third-party plugins (docs/operations.md, Subscriptions), each
 * an agent job recorded in the instance's journal. Deployed state is written only after the whole step succeeded.
 */
final class Pipelines {
    /** One copy to act on: an instance's step on one target host. */
    record CopyWork(long subscriptionId, String instanceId, String groupId, long hostId, long bizId, String agentId,
                    String stepId, PackageInfo pkg, ChangeAction action, StepFiles files,
                    Optional<DeploymentStore.Row> existing, Rendering rendering) {
    }

    /**
     * What renders the copy's files again once its port is known: the instance, its scope, its steps as planning
     * renders them and (read only then) with their secrets' values, the ports held.
     */
    record Rendering(ScopeInstance instance, SubscriptionSpec.Scope scope, List<InstanceRenderer.StepInput> steps,
                     Supplier<List<InstanceRenderer.StepInput>> sentSteps, Map<String, Integer> ports) {
        StepFiles withPort(InstanceRenderer renderer, String stepId, int port) {
            Map<String, Integer> all = new java.util.LinkedHashMap<>(ports);
            all.put(stepId, port);
            InstanceRenderer.RenderedStep shown = renderer.render(instance, scope, steps, all).get(stepId);
            if (shown.error() != null) {
                throw new IllegalStateException(shown.error());
            }
            if (shown.secretStamp() == null) {
                return StepFiles.plain(shown.files());
            }
            return StepFiles.sent(renderer.render(instance, scope, sentSteps.get(), all).get(stepId), shown);
        }
    }

    private final DeploymentStore deployments;
    private final InstanceRenderer renderer;

    Pipelines(DeploymentStore deployments, InstanceRenderer renderer) {
        this.deployments = deployments;
        this.renderer = renderer;
    }

    /** Runs the action's sub-steps; false (with the failed sub-step in the journal) when one fails. */
    boolean run(CopyWork w, StepJournal journal) {
        boolean official = "official".equals(w.pkg().metadata().category());
        return official ? official(w, journal) : external(w, journal);
    }

    private boolean official(CopyWork w, StepJournal j) {
        PackageMetadata m = w.pkg().metadata();
        String setup = DeployPaths.officialBin() + "/" + m.name();
        switch (w.action()) {
            case INSTALL, PUSH_CONFIG, START -> {
                if (w.action() == ChangeAction.INSTALL && !installOfficial(w, j, setup)) {
                    return false;
                }
                if (!pushConfig(w, j, w.files()) || !register(w, j, setup) || !restartOrReload(w, j)) {
                    return false;
                }
                saveRendered(w, CopyStatus.RUNNING, w.files(), null);
                return true;
            }
            case UNINSTALL, STOP -> {
                Map<String, String> deployedFiles = w.existing().map(DeploymentStore.Row::files).orElse(Map.of());
                for (String path : deployedFiles.keySet()) {
                    if (!ok(j.call("remove config " + path, w.agentId(), new RemoveFile(path)))) {
                        return false;
                    }
                }
                if (!register(w, j, setup) || !restartOrReload(w, j)) {
                    return false;
                }
                if (w.action() == ChangeAction.UNINSTALL) {
                    deployments.remove(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId());
                } else {
                    saveMd5s(w, CopyStatus.STOPPED, deployedFiles, null);
                }
                return true;
            }
            default -> throw new IllegalStateException("no pipeline for " + w.action());
        }
    }

    /**
     * An official plugin is installed once per host and shared by every subscription (docs/operations.md,
     * Subscriptions): the same package is kept as it is, and another version replaces it only after its process is
     * stopped, so that one process runs.
     */
    private boolean installOfficial(CopyWork w, StepJournal j, String setup) {
        AgentCalls.Outcome<InstalledPackage> installed = j.call("query installed package", w.agentId(), new QueryPackage(setup));
        if (!installed.ok()) {
            return false;
        }
        if (w.pkg().sha256().equals(installed.result().sha256())) {
            j.note("install package", true, w.pkg().metadata().name() + " " + w.pkg().version() + " is installed already; kept");
            return true;
        }
        if (installed.result().exists() && !(register(w, j, setup) && stop(w, j))) {
            return false;
        }
        return ok(j.call("install package", w.agentId(),
                new InstallPackage(w.pkg().path(), w.pkg().sha256(), setup)));
    }

    private boolean external(CopyWork w, StepJournal j) {
        PackageMetadata m = w.pkg().metadata();
        String dir = DeployPaths.externalDir(w.groupId(), m.name());
        boolean delegate = m.delegated() && m.control().containsKey("start");
        switch (w.action()) {
            case INSTALL -> {
                if (w.existing().isPresent() && delegate && !(register(w, j, dir) && stop(w, j))) {
                    return false;
                }
                String upload = DeployPaths.upload(PackageArchive.fileName(m.name(), w.pkg().version()));
                if (!ok(j.call("push package", w.agentId(),
                        new FetchFile(upload, w.pkg().path(), w.pkg().sha256(), null)))) {
                    return false;
                }
                if (!ok(j.call("install package", w.agentId(),
                        new InstallPackage(w.pkg().path(), w.pkg().sha256(), dir)))) {
                    return false;
                }
                Integer port = null;
                StepFiles files = w.files();
                if (m.portRange() != null) {
                    Optional<Integer> allocated = allocatePort(w, j, PortRange.parse(m.portRange()));
                    if (allocated.isEmpty()) {
                        return false;
                    }
                    port = allocated.get();
                    files = w.rendering().withPort(renderer, w.stepId(), port);
                }
                if (!pushConfig(w, j, files) || (delegate && !(register(w, j, dir) && restartOrReload(w, j)))) {
                    return false;
                }
                saveRendered(w, CopyStatus.RUNNING, files, port);
                return true;
            }
            case PUSH_CONFIG, START -> {
                if (w.action() == ChangeAction.PUSH_CONFIG && !pushConfig(w, j, w.files())) {
                    return false;
                }
                if (delegate && !(register(w, j, dir) && restartOrReload(w, j))) {
                    return false;
                }
                Integer port = w.existing().map(DeploymentStore.Row::port).orElse(null);
                if (w.action() == ChangeAction.START && w.existing().isPresent()) {
                    saveMd5s(w, CopyStatus.RUNNING, w.existing().get().files(), port);
                } else {
                    saveRendered(w, CopyStatus.RUNNING, w.files(), port);
                }
                return true;
            }
            case STOP -> {
                if (delegate && !(register(w, j, dir) && stop(w, j))) {
                    return false;
                }
                saveMd5s(w, CopyStatus.STOPPED, w.existing().map(DeploymentStore.Row::files).orElse(Map.of()),
                        w.existing().map(DeploymentStore.Row::port).orElse(null));
                return true;
            }
            case UNINSTALL -> {
                if (delegate && !(register(w, j, dir) && stop(w, j))) {
                    return false;
                }
                if (!ok(j.call("remove plugin", w.agentId(), new RemovePlugin(dir)))) {
                    return false;
                }
                deployments.remove(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId());
                j.note("release port", true, w.existing().map(DeploymentStore.Row::port).map(p -> "port " + p + " released")
                        .orElse("no port held"));
                return true;
            }
            default -> throw new IllegalStateException("no pipeline for " + w.action());
        }
    }

    /** The first port of the range neither listening on the host nor registered for it (docs/operations.md, Subscriptions: Ports). */
    private Optional<Integer> allocatePort(CopyWork w, StepJournal j, PortRange range) {
        AgentCalls.Outcome<Ports> used = j.call("query used ports", w.agentId(), new UsedPorts());
        if (!used.ok()) {
            return Optional.empty();
        }
        Set<Integer> listening = new HashSet<>(used.result().ports());
        Optional<Integer> port = deployments.allocate(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId(),
                range.ports(), listening);
        j.note("allocate port", port.isPresent(), port.map(p -> "port " + p + " allocated from " + range)
                .orElse("no free port in " + range + " on host " + w.hostId() + " (" + listening.size() + " listening)"));
        return port;
    }

    /**
     * Writes each file; one that holds a secret is written readable by its owner only, and its job is stored and
     * shown with the content redacted.
     */
    private boolean pushConfig(CopyWork w, StepJournal j, StepFiles files) {
        for (String path : files.paths()) {
            String shown = files.shownContent(path);
            boolean secret = shown.equals(SecretReferences.REDACTED);
            String mode = secret ? "0600" : "0644";
            if (!ok(j.call("push config " + path, w.agentId(), new WriteFile(path, files.sent().get(path), mode),
                    new WriteFile(path, shown, mode)))) {
                return false;
            }
        }
        Set<String> stale = new HashSet<>(w.existing().map(DeploymentStore.Row::files).orElse(Map.of()).keySet());
        stale.removeAll(files.paths());
        for (String path : stale) {
            if (!ok(j.call("remove config " + path, w.agentId(), new RemoveFile(path)))) {
                return false;
            }
        }
        return true;
    }

    private boolean register(CopyWork w, StepJournal j, String setupPath) {
        PackageMetadata m = w.pkg().metadata();
        String process = m.processName() == null ? m.name() : m.processName();
        ProcessSpec spec = new ProcessSpec(processName(w), setupPath, setupPath + "/" + process + ".pid", null,
                m.control().get("start"), m.control().get("stop"), m.control().get("restart"), m.control().get("reload"),
                m.control().get("version"), m.control().get("health"), m.delegated());
        return ok(j.call("register process", w.agentId(), new RegisterProcess(spec)));
    }

    private boolean restartOrReload(CopyWork w, StepJournal j) {
        AgentCalls.Outcome<ProcessState> query = j.call("query process", w.agentId(),
                new OperateProcess(processName(w), ProcessOp.QUERY));
        if (!query.ok()) {
            return false;
        }
        boolean running = query.result().running();
        ProcessOp op = running ? ProcessOp.RELOAD : ProcessOp.RESTART;
        return ok(j.call((running ? "reload" : "restart") + " process", w.agentId(),
                new OperateProcess(processName(w), op)));
    }

    private boolean stop(CopyWork w, StepJournal j) {
        return ok(j.call("stop process", w.agentId(), new OperateProcess(processName(w), ProcessOp.STOP)));
    }

    /** Official plugins run one process per host; third-party ones one per copy, named after the group. */
    private static String processName(CopyWork w) {
        PackageMetadata m = w.pkg().metadata();
        String process = m.processName() == null ? m.name() : m.processName();
        return "official".equals(m.category()) ? process : process + "_" + w.groupId();
    }

    /** Records the copy with the md5 of each rendered file (of its shown content and secrets' stamp: never of a secret). */
    private void saveRendered(CopyWork w, CopyStatus status, StepFiles files, Integer port) {
        saveMd5s(w, status, files.md5s(), port);
    }

    private void saveMd5s(CopyWork w, CopyStatus status, Map<String, String> md5s, Integer port) {
        deployments.save(new DeploymentStore.Row(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId(), w.bizId(),
                w.pkg().metadata().name(), w.groupId(), w.pkg().version(), status, md5s, port, null));
    }

    private static boolean ok(AgentCalls.Outcome<?> outcome) {
        return outcome.ok();
    }
}
