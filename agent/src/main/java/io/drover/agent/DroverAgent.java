package io.drover.agent;

import io.drover.agent.amqp.AmqpChannel;
import io.drover.agent.amqp.AmqpSettings;
import io.drover.agent.functions.Functions;
import io.drover.agent.functions.ListeningPorts;
import io.drover.agent.install.AgentHome;
import io.drover.agent.install.SelfUpgrade;
import io.drover.agent.plans.PlanHooks;
import io.drover.agent.plans.PlanRunner;
import io.drover.agent.plans.PlanService;
import io.drover.agent.plans.PlanSetup;
import io.drover.agent.plans.SaltStackExecutor;
import io.drover.core.plans.ExecutionResult;
import io.drover.core.plans.LogMessage;
import io.drover.core.plans.PlanRestarts;
import io.drover.agent.jobs.JobProcesses;
import io.drover.agent.journal.Journal;
import io.drover.agent.supervisor.Supervisor;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import io.drover.transport.wire.SaltPack;
import io.drover.model.agentapi.AgentResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agent's assembly: keys in its state directory, the Salt minion transport, and the job functions. */
public final class DroverAgent implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DroverAgent.class);

    private static final long RESEND_MS = 2000;
    private static final int MAX_LOOP_RESTARTS = 3;

    /** Null for an agent that takes plans over AMQP only. */
    private final SaltMinion minion;
    private final Functions functions;
    private final Lazy<PlanService> plans;
    private final RestartablePlans restartablePlans;
    /** A plan's log messages, kept while the master is away (at most 10,000). */
    private final EventOutbox planLogs = new EventOutbox(
            (tag, data) -> minion().state() == SaltMinion.State.CONNECTED && minion().fireEvent(tag, data), 10_000);
    /** Jobs' states (received, running) for the server, kept while the master is away (at most 10,000). */
    private final EventOutbox jobStates = new EventOutbox(
            (tag, data) -> minion().state() == SaltMinion.State.CONNECTED && minion().fireEvent(tag, data), 10_000);
    private final AmqpChannel amqp;
    private final Journal journal;
    private final Thread resender;
    private final Thread heartbeats;
    private final String version;
    private final Grains.Placement placement;
    private final Duration heartbeat;
    private volatile Map<String, Object> grains;
    private volatile boolean running = true;
    /** Jobs running in this process (for saltutil.find_job); a journalled job not among them was cut short by a stop. */
    private final Map<String, Map<String, Object>> inFlight = new java.util.concurrent.ConcurrentHashMap<>();
    /** The processes of the jobs running in this process (for saltutil.kill_job). */
    private final Map<String, JobProcesses> jobProcesses = new java.util.concurrent.ConcurrentHashMap<>();
    private final Supervisor supervisor;
    private final java.util.concurrent.atomic.AtomicInteger loopRestarts = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.function.IntConsumer exit = System::exit;

    /** {@code config} null: no Drover server, plans over AMQP only (no minion, heartbeats or job journal resends). */
    private DroverAgent(String id, MinionConfig config, Path root, String version, Grains.Placement placement, Duration heartbeat,
                        AmqpSettings amqpSettings) {
        Path stateDir = root.resolve("var/lib/drover-agent");
        AgentKeys keys = new AgentKeys(stateDir);
        this.journal = new Journal(stateDir);
        this.version = version;
        this.placement = placement;
        this.heartbeat = heartbeat;
        this.grains = Grains.collect(id, placement);
        this.supervisor = new Supervisor(stateDir, root, this::pluginDied);
        FileserverSource fileserver = new FileserverSource(this::minion, stateDir.resolve("tmp"));
        // Made on the first plan (or now, for the AMQP channel): an agent that runs no plans does not pay for them.
        this.restartablePlans = new RestartablePlans(stateDir);
        this.plans = new Lazy<>(() -> new PlanService(planSetup(root, stateDir, version, fileserver), this::callFunction));
        this.functions = new Functions(() -> grains, version, root, supervisor, fileserver, inFlight::get,
                ListeningPorts::read, this::runPlan,
                new SelfUpgrade(root, AgentHome.fromSystem(), version, fileserver, inFlight::size), this::killJob);
        this.amqp = amqpSettings == null ? null : new AmqpChannel(amqpSettings, plans.get(), stateDir, java.time.Clock.systemUTC());
        if (config == null) {
            this.minion = null;
            this.resender = null;
            this.heartbeats = null;
            return;
        }
        this.minion = new SaltMinion(config, keys.loadOrCreate(), keys.pinnedMaster(), Targets.of(config.id(), () -> grains),
                this::runJob, keys::pinMaster, new SignInFile(stateDir, version, java.time.Clock.systemUTC()));
        this.resender = Thread.ofPlatform().name("agent-resend").daemon().start(this::resendLoop);
        this.heartbeats = Thread.ofPlatform().name("agent-heartbeat").daemon().start(this::heartbeatLoop);
    }

    /** Starts the agent: it signs in (retrying until its key is accepted) and then runs the jobs that target it. */
    public static DroverAgent start(MinionConfig config, Path root, String version, Grains.Placement placement,
                                    Duration heartbeat) {
        return new DroverAgent(config.id(), config, root, version, placement, heartbeat, null);
    }

    /** As above, also taking execution plans over AMQP. */
    public static DroverAgent start(MinionConfig config, Path root, String version, Grains.Placement placement,
                                    Duration heartbeat, AmqpSettings amqp) {
        return new DroverAgent(config.id(), config, root, version, placement, heartbeat, amqp);
    }

    /**
     * An agent with no Drover server: it takes execution plans over AMQP only. SaltStack scripts still call its own
     * functions; a plan file from the fileserver ({@code salt://}) cannot be fetched (error 8).
     */
    public static DroverAgent startAmqpOnly(String id, Path root, String version, Grains.Placement placement, AmqpSettings amqp) {
        return new DroverAgent(id, null, root, version, placement, Duration.ofSeconds(30), java.util.Objects.requireNonNull(amqp));
    }

    /**
     * Tells the server the agent is alive every interval, with its version and current grains; the first heartbeat
     * of every new session goes at once (after a start, a reconnect or a re-authentication), after Salt's
     * {@code salt/minion/<id>/start} event on the first one.
     */
    private void heartbeatLoop() {
        SaltMinion.State last = SaltMinion.State.CONNECTING;
        long nextAt = 0;
        boolean started = false;
        while (running) {
            try {
                if (!minion.loopAlive()) {
                    restartDeadLoop();
                    Thread.sleep(200);
                    continue;
                }
                SaltMinion.State now = minion.state();
                if (now == SaltMinion.State.CONNECTED && (last != SaltMinion.State.CONNECTED || System.nanoTime() >= nextAt)) {
                    if (!started) {
                        started = minion.fireEvent("salt/minion/" + minion.id() + "/start",
                                Map.of("data", "Minion " + minion.id() + " started"));
                    }
                    Map<String, Object> current = Grains.collect(minion.id(), placement);
                    grains = current;
                    Map<String, Object> data = new LinkedHashMap<>();
                    data.put("version", version);
                    data.put("interval", heartbeat.toSeconds());
                    data.put("grains", current);
                    boolean sent = minion.heartbeat("drover/agent/" + minion.id() + "/heartbeat", data, heartbeat);
                    nextAt = System.nanoTime() + (sent ? heartbeat : Duration.ofSeconds(2)).toNanos();
                }
                last = now;
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("{}: heartbeat failed", minion.id(), e);
            }
        }
    }

    /**
     * The minion's loop (sign-in and publishes) died: no heartbeat goes out while it is dead, so the server never
     * shows an agent online that cannot take jobs. It is started again; after {@link #MAX_LOOP_RESTARTS} restarts
     * the agent exits with status 70 so that its service manager starts a fresh process.
     */
    private void restartDeadLoop() {
        if (loopRestarts.incrementAndGet() > MAX_LOOP_RESTARTS) {
            log.error("{}: the job loop died {} times; exiting so that the service manager restarts the agent",
                    minion.id(), MAX_LOOP_RESTARTS);
            exit.accept(70);
            return;
        }
        if (minion.restartLoopIfDead()) {
            log.error("{}: the job loop died; restarted it ({} of {})", minion.id(), loopRestarts.get(), MAX_LOOP_RESTARTS);
        }
    }

    private static PlanSetup planSetup(Path root, Path stateDir, String version, FileserverSource fileserver) {
        try {
            return new PlanSetup(root, stateDir, PlanService.installBootstrap(stateDir), PlanService.findPython(), version,
                    fileserver, java.time.Clock.systemUTC(), PlanRunner.DEFAULT_TIMEOUT);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot install the execution plan bootstrap under " + stateDir, e);
        }
    }

    /** A SaltStack script's call of one of the agent's own functions. */
    private SaltStackExecutor.Reply callFunction(String fun, List<Object> args) {
        Functions.Result result = functions.call(fun, args);
        return new SaltStackExecutor.Reply(result.value(), result.retcode());
    }

    /**
     * {@code plan.execute} over the Drover transport: log messages go to the server as events while the plan runs; a
     * plan waiting for a reboot is remembered so that, cut short by a stop, it runs again at the next start.
     */
    private Map<String, Object> runPlan(String plan) {
        PlanService.Answer answer = plans.get().execute(plan.getBytes(java.nio.charset.StandardCharsets.UTF_8), null, new PlanHooks() {
            @Override
            public void log(LogMessage message) {
                planLogs.send("drover/plan/" + message.sourceId() + "/log", message.toWire());
            }

            @Override
            public void restartable(int maxReboots) {
                restartablePlans.write(plan, restartablePlans.read(plan).waiting(maxReboots));
            }

            @Override
            public void rebootWaitOver() {
                restartablePlans.write(plan, restartablePlans.read(plan).running());
            }
        });
        restartablePlans.clear(plan);
        return answer.document();
    }

    /** The server this agent uses now (the first of its list that answers). */
    public io.drover.transport.minion.MinionConfig.Master master() {
        return minion().master();
    }

    private SaltMinion minion() {
        return minion;
    }

    /** How many times the agent signed in since it started (a failover within a cluster keeps the session). */
    public long signIns() {
        return minion.signIns();
    }

    public SaltMinion.State state() {
        return minion.state();
    }

    /** Journal first, then run, then journal the return, then send it: a crash at any point loses nothing. */
    private void runJob(SaltMinion source, Map<?, ?> load) {
        String jid = String.valueOf(load.get("jid"));
        Map<String, Object> running = Map.of("jid", jid, "fun", String.valueOf(load.get("fun")),
                "arg", load.get("arg") instanceof List<?> l ? l : List.of(), "pid", ProcessHandle.current().pid());
        // A job sent again while it still runs here (a server that took the call over) leaves the run alone: had it
        // taken the run's entry out on its way, the resend loop would report the running job as interrupted.
        if (inFlight.putIfAbsent(jid, running) != null) {
            log.debug("{}: job {} is running (sent again); not running it twice", source.id(), jid);
            return;
        }
        try {
            if (!journal.begin(jid, SaltPack.pack(load))) {
                log.debug("{}: job {} was seen before (sent again); not running it again", source.id(), jid);
                return;
            }
            reportJob(jid, "received");
            String fun = String.valueOf(load.get("fun"));
            List<?> args = load.get("arg") instanceof List<?> l ? l : List.of();
            finish(jid, fun, args, () -> functions.call(fun, args));
        } finally {
            inFlight.remove(jid, running);
        }
    }

    /**
     * Runs a job's function with its processes recorded, then journals and sends its return; a job stopped by
     * {@code saltutil.kill_job} returns marked {@code killed}, with a non-zero retcode.
     */
    private void finish(String jid, String fun, List<?> args, java.util.function.Supplier<Functions.Result> call) {
        JobProcesses processes = new JobProcesses(jid, () -> reportJob(jid, "running"));
        jobProcesses.put(jid, processes);
        Functions.Result result;
        try {
            result = processes.run(call);
        } finally {
            jobProcesses.remove(jid, processes);
        }
        Map<String, Object> ret = returnOf(jid, fun, args, result.value(),
                processes.killed() && result.retcode() == 0 ? 1 : result.retcode());
        if (processes.killed()) {
            ret.put("killed", true);
        }
        journal.finish(jid, SaltPack.pack(ret));
        send(jid, ret);
    }

    /**
     * Tells the server how far a job got ({@code received}: journalled, it will run; {@code running}: it started a
     * process), without holding the job up; kept while the master is away, as plan logs are.
     */
    private void reportJob(String jid, String state) {
        Thread.ofPlatform().daemon().name("job-state-" + jid).start(() -> jobStates.send(
                io.drover.core.agents.AgentEventTags.jobState(minion.id(), jid, state), Map.of("jid", jid)));
    }

    /** {@code saltutil.kill_job}: the job's process groups get SIGTERM, then SIGKILL after a grace. */
    private AgentResult.JobKilled killJob(String jid) throws InterruptedException {
        JobProcesses processes = jobProcesses.get(jid);
        if (processes == null) {
            return new AgentResult.JobKilled(jid, false, 0);
        }
        int signalled = processes.kill(JobProcesses.GRACE);
        log.info("{}: job {} killed ({} processes signalled)", minion.id(), jid, signalled);
        return new AgentResult.JobKilled(jid, true, signalled);
    }

    /**
     * A {@code plan.execute} job cut short by a stop: its plan runs again from the start (once after a crash, or after
     * each reboot it waited for, within its expectReboots), or its error result is journalled as the job's return.
     */
    private void restartOrAnswer(String jid, Map<?, ?> job, List<?> args, String plan) {
        switch (restartablePlans.read(plan).atStart()) {
            case PlanRestarts.Decision.Restart restart -> {
                restartablePlans.write(plan, restart.next());
                log.info("{}: job {} ran a plan cut short by {}; running it again from the start", minion.id(), jid,
                        restart.afterReboot() ? "a reboot it waited for" : "a stop of the agent");
                inFlight.put(jid, Map.of("jid", jid, "fun", "plan.execute", "arg", args, "pid", ProcessHandle.current().pid()));
                Thread.ofVirtual().name("plan-restart-" + jid).start(() -> rerun(jid, job, args));
            }
            case PlanRestarts.Decision.Answer answer -> {
                restartablePlans.clear(plan);
                Map<String, Object> document = ExecutionResult.failure(PlanRunner.newId(), planSourceId(plan), answer.error(),
                        java.time.Instant.now()).toWire();
                journal.finish(jid, SaltPack.pack(returnOf(jid, "plan.execute", args, document, 1)));
            }
        }
    }

    private static String planSourceId(String plan) {
        try {
            return io.drover.model.plans.PlanJson.read(plan) instanceof Map<?, ?> map && map.get("ID") instanceof String id ? id : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    /** A journalled job run again (a plan cut short by a stop): its return is journalled and sent as any. */
    private void rerun(String jid, Map<?, ?> job, List<?> args) {
        try {
            String fun = String.valueOf(job.get("fun"));
            finish(jid, fun, args, () -> functions.call(fun, args));
        } finally {
            inFlight.remove(jid);
        }
    }

    private static Map<String, Object> returnOf(String jid, String fun, List<?> args, Object value, int retcode) {
        Map<String, Object> ret = new LinkedHashMap<>();
        ret.put("jid", jid);
        ret.put("fun", fun);
        ret.put("fun_args", args);
        ret.put("return", value);
        ret.put("retcode", retcode);
        ret.put("success", retcode == 0);
        return ret;
    }

    private void send(String jid, Map<String, Object> ret) {
        if (minion.sendReturn(ret)) {
            journal.acknowledged(jid);
        } else {
            log.warn("{}: the return of job {} was not acknowledged; it will be sent again", minion.id(), jid);
        }
    }

    /**
     * After a restart or a lost connection: sends returns that were written but not acknowledged, and reports jobs
     * that were running when the agent stopped as interrupted (they are never run again; a plan is, within limits).
     */
    private void resendLoop() {
        while (running) {
            try {
                if (minion.state() == SaltMinion.State.CONNECTED) {
                    for (String jid : journal.interrupted()) {
                        if (inFlight.containsKey(jid)) {
                            continue;
                        }
                        Map<?, ?> job = (Map<?, ?>) SaltPack.unpack(journal.read(jid, "job"));
                        List<?> args = job.get("arg") instanceof List<?> l ? l : List.of();
                        if ("plan.execute".equals(job.get("fun")) && !args.isEmpty() && args.getFirst() instanceof String plan) {
                            restartOrAnswer(jid, job, args, plan);
                            continue;
                        }
                        Map<String, Object> ret = returnOf(jid, String.valueOf(job.get("fun")), args,
                                "interrupted: the agent stopped while this job ran; it was not run again", 1);
                        journal.finish(jid, SaltPack.pack(ret));
                    }
                    for (String jid : journal.unsent()) {
                        if (inFlight.containsKey(jid)) {
                            continue;
                        }
                        @SuppressWarnings("unchecked")
                        Map<String, Object> ret = (Map<String, Object>) SaltPack.unpack(journal.read(jid, "ret"));
                        send(jid, ret);
                    }
                    journal.prune();
                    planLogs.flush();
                    jobStates.flush();
                }
                Thread.sleep(RESEND_MS);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("{}: resending journalled returns failed", minion.id(), e);
            }
        }
    }

    /** A delegated plugin died: {@code drover/agent/<id>/plugin/<name>/exited}, which diagnosis triggers can match. */
    private void pluginDied(String name) {
        SaltMinion sender = minion;
        if (sender != null) {
            sender.fireEvent("drover/agent/" + sender.id() + "/plugin/" + name + "/exited", Map.of("plugin", name));
        }
    }

    @Override
    public void close() {
        running = false;
        // No interrupts: an interrupted NIO channel is closed under its thread. Both loops check running at
        // least every two seconds and are daemons.
        if (amqp != null) {
            amqp.close();
        }
        supervisor.close();
        if (minion != null) {
            minion.close();
        }
    }
}
