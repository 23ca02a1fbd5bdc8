package io.drover.server.subscriptions;

import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PortRange;
import io.drover.core.subscriptions.Action;
import io.drover.core.subscriptions.DeployPaths;
import io.drover.core.subscriptions.Planner.CopyStatus;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata;
import io.drover.core.render.TemplateRenderer;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The sub-steps of each action (seed 000 §3.1 official plugins, §3.2 third-party plugins), each an agent job
 * recorded in the instance's journal. Deployed state is written only after the whole step succeeded.
 */
final class Pipelines {
    /** One copy to act on: an instance's step on one target host. */
    record CopyWork(long subscriptionId, String instanceId, String groupId, long hostId, long bizId, String agentId,
                    String stepId, PackageInfo pkg, Action action, Map<String, String> files,
                    Optional<Deployments.Row> existing, IntFunction<Map<String, String>> renderWithPort) {
    }

    private final AgentJobs jobs;
    private final Deployments deployments;

    Pipelines(AgentJobs jobs, Deployments deployments) {
        this.jobs = jobs;
        this.deployments = deployments;
    }

    /** Runs the action's sub-steps; false (with the failed sub-step in the journal) when one fails. */
    boolean run(CopyWork w, Journal journal) {
        boolean official = "official".equals(w.pkg().metadata().category());
        return official ? official(w, journal) : external(w, journal);
    }

    private boolean official(CopyWork w, Journal j) {
        PackageMetadata m = w.pkg().metadata();
        String setup = DeployPaths.officialBin() + "/" + m.name();
        switch (w.action()) {
            case INSTALL, PUSH_CONFIG, START -> {
                if (w.action() == Action.INSTALL && !installOfficial(w, j, setup)) {
                    return false;
                }
                if (!pushConfig(w, j, w.files()) || !register(w, j, setup) || !restartOrReload(w, j)) {
                    return false;
                }
                saveRendered(w, CopyStatus.RUNNING, w.files(), null);
                return true;
            }
            case UNINSTALL, STOP -> {
                Map<String, String> deployedFiles = w.existing().map(Deployments.Row::files).orElse(Map.of());
                for (String path : deployedFiles.keySet()) {
                    if (!ok(j.run("remove config " + path, () -> jobs.call(w.agentId(), "file.remove", List.of(path), Map.of())))) {
                        return false;
                    }
                }
                if (!register(w, j, setup) || !restartOrReload(w, j)) {
                    return false;
                }
                if (w.action() == Action.UNINSTALL) {
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
     * An official plugin is installed once per host and shared by every subscription (seed 000 §3.1): the same package
     * is kept as it is, and another version replaces it only after its process is stopped, so that one process runs.
     */
    private boolean installOfficial(CopyWork w, Journal j, String setup) {
        AgentJobs.Outcome installed = j.run("query installed package", () -> jobs.call(w.agentId(), "plugin.installed",
                List.of(setup), Map.of()));
        if (!installed.ok()) {
            return false;
        }
        Map<?, ?> state = installed.ret() instanceof Map<?, ?> m ? m : Map.of();
        if (w.pkg().sha256().equals(state.get("sha256"))) {
            j.note("install package", true, w.pkg().metadata().name() + " " + w.pkg().version() + " is installed already; kept");
            return true;
        }
        if (Boolean.TRUE.equals(state.get("exists")) && !(register(w, j, setup) && stop(w, j))) {
            return false;
        }
        return ok(j.run("install package", () -> jobs.call(w.agentId(), "plugin.install_package",
                List.of(w.pkg().path(), w.pkg().sha256(), setup), Map.of())));
    }

    private boolean external(CopyWork w, Journal j) {
        PackageMetadata m = w.pkg().metadata();
        String dir = DeployPaths.externalDir(w.groupId(), m.name());
        boolean delegate = m.delegated() && m.control().containsKey("start");
        switch (w.action()) {
            case INSTALL -> {
                if (w.existing().isPresent() && delegate && !(register(w, j, dir) && stop(w, j))) {
                    return false;
                }
                String upload = DeployPaths.upload(PackageArchive.fileName(m.name(), w.pkg().version()));
                if (!ok(j.run("push package", () -> jobs.call(w.agentId(), "file.write", List.of(upload),
                        Map.of("source", w.pkg().path(), "sha256", w.pkg().sha256()))))) {
                    return false;
                }
                if (!ok(j.run("install package", () -> jobs.call(w.agentId(), "plugin.install_package",
                        List.of(w.pkg().path(), w.pkg().sha256(), dir), Map.of())))) {
                    return false;
                }
                Integer port = null;
                Map<String, String> files = w.files();
                if (m.portRange() != null) {
                    Optional<Integer> allocated = allocatePort(w, j, PortRange.parse(m.portRange()));
                    if (allocated.isEmpty()) {
                        return false;
                    }
                    port = allocated.get();
                    files = w.renderWithPort().apply(port);
                }
                if (!pushConfig(w, j, files) || (delegate && !(register(w, j, dir) && restartOrReload(w, j)))) {
                    return false;
                }
                saveRendered(w, CopyStatus.RUNNING, files, port);
                return true;
            }
            case PUSH_CONFIG, START -> {
                if (w.action() == Action.PUSH_CONFIG && !pushConfig(w, j, w.files())) {
                    return false;
                }
                if (delegate && !(register(w, j, dir) && restartOrReload(w, j))) {
                    return false;
                }
                Integer port = w.existing().map(Deployments.Row::port).orElse(null);
                if (w.action() == Action.START && w.existing().isPresent()) {
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
                saveMd5s(w, CopyStatus.STOPPED, w.existing().map(Deployments.Row::files).orElse(Map.of()),
                        w.existing().map(Deployments.Row::port).orElse(null));
                return true;
            }
            case UNINSTALL -> {
                if (delegate && !(register(w, j, dir) && stop(w, j))) {
                    return false;
                }
                if (!ok(j.run("remove plugin", () -> jobs.call(w.agentId(), "plugin.remove", List.of(dir), Map.of())))) {
                    return false;
                }
                deployments.remove(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId());
                j.note("release port", true, w.existing().map(Deployments.Row::port).map(p -> "port " + p + " released")
                        .orElse("no port held"));
                return true;
            }
            default -> throw new IllegalStateException("no pipeline for " + w.action());
        }
    }

    /** The first port of the range neither listening on the host nor registered for it (seed §3.2.1 step 3). */
    @SuppressWarnings("unchecked")
    private Optional<Integer> allocatePort(CopyWork w, Journal j, PortRange range) {
        AgentJobs.Outcome used = j.run("query used ports", () -> jobs.call(w.agentId(), "sys.used_ports", List.of(), Map.of()));
        if (!used.ok()) {
            return Optional.empty();
        }
        Set<Integer> listening = new HashSet<>();
        if (used.ret() instanceof List<?> ports) {
            ports.forEach(p -> {
                if (p instanceof Number n) {
                    listening.add(n.intValue());
                }
            });
        }
        Optional<Integer> port = deployments.allocate(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId(),
                range.ports(), listening);
        j.note("allocate port", port.isPresent(), port.map(p -> "port " + p + " allocated from " + range)
                .orElse("no free port in " + range + " on host " + w.hostId() + " (" + listening.size() + " listening)"));
        return port;
    }

    private boolean pushConfig(CopyWork w, Journal j, Map<String, String> files) {
        for (Map.Entry<String, String> file : files.entrySet()) {
            if (!ok(j.run("push config " + file.getKey(), () -> jobs.call(w.agentId(), "file.write",
                    List.of(file.getKey(), file.getValue(), "0644"), Map.of())))) {
                return false;
            }
        }
        Set<String> stale = new HashSet<>(w.existing().map(Deployments.Row::files).orElse(Map.of()).keySet());
        stale.removeAll(files.keySet());
        for (String path : stale) {
            if (!ok(j.run("remove config " + path, () -> jobs.call(w.agentId(), "file.remove", List.of(path), Map.of())))) {
                return false;
            }
        }
        return true;
    }

    private boolean register(CopyWork w, Journal j, String setupPath) {
        PackageMetadata m = w.pkg().metadata();
        Map<String, Object> spec = new LinkedHashMap<>();
        String process = m.processName() == null ? m.name() : m.processName();
        spec.put("setup_path", setupPath);
        spec.put("pid_path", setupPath + "/" + process + ".pid");
        spec.put("start_cmd", m.control().get("start"));
        putIfPresent(spec, "stop_cmd", m.control().get("stop"));
        putIfPresent(spec, "restart_cmd", m.control().get("restart"));
        putIfPresent(spec, "reload_cmd", m.control().get("reload"));
        putIfPresent(spec, "version_cmd", m.control().get("version"));
        putIfPresent(spec, "health_cmd", m.control().get("health"));
        spec.put("delegate", String.valueOf(m.delegated()));
        return ok(j.run("register process", () -> jobs.call(w.agentId(), "proc.register", List.of(processName(w)), spec)));
    }

    private boolean restartOrReload(CopyWork w, Journal j) {
        AgentJobs.Outcome query = j.run("query process", () -> jobs.call(w.agentId(), "proc.operate",
                List.of(processName(w), "QUERY"), Map.of()));
        if (!query.ok()) {
            return false;
        }
        boolean running = query.ret() instanceof Map<?, ?> state && "RUNNING".equals(state.get("status"));
        String op = running ? "RELOAD" : "RESTART";
        return ok(j.run((running ? "reload" : "restart") + " process", () -> jobs.call(w.agentId(), "proc.operate",
                List.of(processName(w), op), Map.of())));
    }

    private boolean stop(CopyWork w, Journal j) {
        return ok(j.run("stop process", () -> jobs.call(w.agentId(), "proc.operate", List.of(processName(w), "STOP"), Map.of())));
    }

    /** Official plugins run one process per host; third-party ones one per copy, named after the group. */
    private static String processName(CopyWork w) {
        PackageMetadata m = w.pkg().metadata();
        String process = m.processName() == null ? m.name() : m.processName();
        return "official".equals(m.category()) ? process : process + "_" + w.groupId();
    }

    /** Records the copy with the md5 of each rendered file's content. */
    private void saveRendered(CopyWork w, CopyStatus status, Map<String, String> contents, Integer port) {
        Map<String, String> md5s = new LinkedHashMap<>();
        contents.forEach((path, content) -> md5s.put(path, TemplateRenderer.md5(content)));
        saveMd5s(w, status, md5s, port);
    }

    private void saveMd5s(CopyWork w, CopyStatus status, Map<String, String> md5s, Integer port) {
        deployments.save(new Deployments.Row(w.subscriptionId(), w.instanceId(), w.stepId(), w.hostId(), w.bizId(),
                w.pkg().metadata().name(), w.groupId(), w.pkg().version(), status, md5s, port, null));
    }

    private static void putIfPresent(Map<String, Object> map, String key, String value) {
        if (value != null) {
            map.put(key, value);
        }
    }

    private static boolean ok(AgentJobs.Outcome outcome) {
        return outcome.ok();
    }
}
