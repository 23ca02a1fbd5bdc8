package io.drover.bench;

import io.drover.agent.FileserverSource;
import io.drover.agent.functions.Functions;
import io.drover.agent.plans.PlanHooks;
import io.drover.agent.plans.PlanRunner;
import io.drover.agent.plans.PlanService;
import io.drover.agent.plans.PlanSetup;
import io.drover.agent.plans.SaltStackExecutor;
import io.drover.agent.functions.ListeningPorts;
import io.drover.agent.supervisor.Supervisor;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.envelope.PublishLoad;
import io.drover.transport.minion.SaltMinion;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One simulated host for the fleet load tool: the real agent functions (files, packages fetched over the
 * fileserver and extracted, listening ports) under its own root; only process supervision is simulated
 * ({@code proc.register} is remembered, START/RESTART/RELOAD leave the process RUNNING, STOP stops it), since a
 * thousand real plugin processes do not fit one machine.
 */
final class SimulatedHost {
    private final AtomicReference<SaltMinion> minion = new AtomicReference<>();
    private final Functions functions;
    private final Map<String, String> processes = new ConcurrentHashMap<>();
    private final ExecutorService jobs;

    /**
     * {@code listeningPorts}: the simulated hosts of one load process share one network namespace, so they share
     * one reading of its port tables (see {@link SharedPortTable}).
     */
    SimulatedHost(String id, Path root, ExecutorService jobs, ListeningPorts.Source listeningPorts) {
        this.jobs = jobs;
        Path state = root.resolve("var/lib/drover-agent");
        FileserverSource fileserver = new FileserverSource(minion::get, state.resolve("tmp"));
        PlanService plans = plans(root, state, fileserver);
        this.functions = new Functions(() -> Map.of("id", id), "load", root, new Supervisor(state, root, name -> { }), fileserver,
                jid -> null, listeningPorts, plan -> plans.execute(plan.getBytes(java.nio.charset.StandardCharsets.UTF_8), null,
                        QUIET).document(),
                io.drover.agent.functions.AgentUpgrader.NOT_INSTALLED);
    }

    /** Plans run for real (the host's bash and python3); their log messages are dropped. */
    private static final PlanHooks QUIET = new PlanHooks() {
        @Override
        public void log(io.drover.core.plans.LogMessage message) {
        }

        @Override
        public void restartable(int maxReboots) {
        }

        @Override
        public void rebootWaitOver() {
        }
    };

    private static PlanService plans(Path root, Path state, FileserverSource fileserver) {
        try {
            return new PlanService(new PlanSetup(root, state, PlanService.installBootstrap(state), PlanService.findPython(),
                    "load", fileserver, java.time.Clock.systemUTC(), PlanRunner.DEFAULT_TIMEOUT),
                    (fun, args) -> new SaltStackExecutor.Reply("no functions here", 254));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    void attach(SaltMinion m) {
        minion.set(m);
    }

    /** Runs a job off the minion's I/O thread (a package fetch talks to the server over the same minion). */
    void handle(SaltMinion m, Map<?, ?> load) {
        PublishLoad job = PublishLoad.fromWire(load);
        jobs.submit(() -> {
            String fun = job.fun();
            List<?> args = job.arg();
            Object value;
            int retcode;
            if (fun.startsWith("proc.")) {
                String name = args.isEmpty() ? "" : String.valueOf(args.getFirst());
                String op = args.size() > 1 ? String.valueOf(args.get(1)).toUpperCase(java.util.Locale.ROOT) : "";
                // answered as the agent's functions answer (AgentResult.ProcessRegistered, ProcessUnregistered, ProcessState)
                if (fun.equals("proc.register")) {
                    processes.putIfAbsent(name, "TERMINATED");
                    value = Map.of("name", name, "registered", true);
                } else if (fun.equals("proc.unregister")) {
                    value = Map.of("name", name, "unregistered", processes.remove(name) != null);
                } else {
                    if (List.of("START", "RESTART", "RELOAD").contains(op)) {
                        processes.put(name, "RUNNING");
                    } else if (op.equals("STOP")) {
                        processes.put(name, "TERMINATED");
                    }
                    value = Map.of("name", name, "op", op, "status", processes.getOrDefault(name, "UNREGISTER"));
                }
                retcode = 0;
            } else {
                Functions.Result result = functions.call(fun, args);
                value = result.value();
                retcode = result.retcode();
            }
            m.sendReturn(JobReturn.of(job.jid(), fun, args, value, retcode));
        });
    }
}
