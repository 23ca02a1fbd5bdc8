package io.drover.agent.jobs;

import io.drover.agent.functions.Functions;
import io.drover.agent.journal.Journal;
import io.drover.agent.plans.PlanRunner;
import io.drover.agent.plans.RestartablePlans;
import io.drover.core.plans.ExecutionResult;
import io.drover.core.plans.PlanRestarts;
import io.drover.model.agentapi.AgentResult;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.envelope.MalformedEnvelopeException;
import io.drover.transport.envelope.PublishLoad;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.wire.SaltPack;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the jobs the server publishes to this agent: each is journalled before it runs (a job seen before is not run
 * again), its function runs with its processes recorded (so that {@code saltutil.kill_job} can stop them), and its
 * return is journalled, then sent. After a stop, {@link #resendJournalled} reports the jobs it cut short and sends the
 * returns the server did not acknowledge.
 */
public final class JobRunner {
    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    /** Runs one of the agent's functions. */
    public interface Calls {
        Functions.Result call(String fun, List<?> args);
    }

    /** Tells the server how far a job got ({@code received}, {@code running}); kept while the server is away. */
    public interface States {
        void report(String jid, String state);
    }

    /** Sends a job's return to the server; true when the server acknowledged it. */
    public interface Returns {
        boolean send(JobReturn ret);
    }

    private final String agentId;
    private final Journal journal;
    private final Calls calls;
    private final RestartablePlans restartablePlans;
    private final States states;
    private final Returns returns;
    /** Jobs running in this process (for saltutil.find_job); a journalled job not among them was cut short by a stop. */
    private final Map<String, Map<String, Object>> inFlight = new ConcurrentHashMap<>();
    /** The processes of the jobs running in this process (for saltutil.kill_job). */
    private final Map<String, JobProcesses> jobProcesses = new ConcurrentHashMap<>();

    public JobRunner(String agentId, Journal journal, Calls calls, RestartablePlans restartablePlans, States states,
                     Returns returns) {
        this.agentId = agentId;
        this.journal = journal;
        this.calls = calls;
        this.restartablePlans = restartablePlans;
        this.states = states;
        this.returns = returns;
    }

    /** A job running here ({@code jid}, {@code fun}, {@code arg}, {@code pid}), or null. */
    public Map<String, Object> running(String jid) {
        return inFlight.get(jid);
    }

    /** How many jobs run here now. */
    public int runningCount() {
        return inFlight.size();
    }

    /** Journal first, then run, then journal the return, then send it: a crash at any point loses nothing. */
    public void run(SaltMinion source, Map<?, ?> load) {
        PublishLoad job;
        try {
            job = PublishLoad.fromWire(load);
        } catch (MalformedEnvelopeException e) {
            log.warn("{}: dropped a publish that is not a job: {}", source.id(), e.getMessage());
            return;
        }
        String jid = job.jid();
        Map<String, Object> running = Map.of("jid", jid, "fun", job.fun(), "arg", job.arg(), "pid", ProcessHandle.current().pid());
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
            report(jid, "received");
            finish(jid, job.fun(), job.arg(), () -> calls.call(job.fun(), job.arg()));
        } finally {
            inFlight.remove(jid, running);
        }
    }

    /**
     * Runs a job's function with its processes recorded, then journals and sends its return; a job stopped by
     * {@code saltutil.kill_job} returns marked {@code killed}, with a non-zero retcode.
     */
    private void finish(String jid, String fun, List<?> args, Supplier<Functions.Result> call) {
        JobProcesses processes = new JobProcesses(jid, () -> report(jid, "running"));
        jobProcesses.put(jid, processes);
        Functions.Result result;
        try {
            result = processes.run(call);
        } finally {
            jobProcesses.remove(jid, processes);
        }
        JobReturn ret = JobReturn.of(jid, fun, args, result.value(),
                processes.killed() && result.retcode() == 0 ? 1 : result.retcode());
        if (processes.killed()) {
            ret = ret.asKilled();
        }
        journal.finish(jid, SaltPack.pack(ret.toWire()));
        send(jid, ret);
    }

    /** Reports how far a job got without holding the job up. */
    private void report(String jid, String state) {
        Thread.ofPlatform().daemon().name("job-state-" + jid).start(() -> states.report(jid, state));
    }

    /** {@code saltutil.kill_job}: the job's process groups get SIGTERM, then SIGKILL after a grace. */
    public AgentResult.JobKilled kill(String jid) throws InterruptedException {
        JobProcesses processes = jobProcesses.get(jid);
        if (processes == null) {
            return new AgentResult.JobKilled(jid, false, 0);
        }
        int signalled = processes.kill(JobProcesses.GRACE);
        log.info("{}: job {} killed ({} processes signalled)", agentId, jid, signalled);
        return new AgentResult.JobKilled(jid, true, signalled);
    }

    /**
     * After a restart or a lost connection: sends returns that were written but not acknowledged, and reports jobs
     * that were running when the agent stopped as interrupted (they are never run again; a plan is, within limits).
     */
    public void resendJournalled() {
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
            JobReturn ret = JobReturn.of(jid, String.valueOf(job.get("fun")), args,
                    "interrupted: the agent stopped while this job ran; it was not run again", 1);
            journal.finish(jid, SaltPack.pack(ret.toWire()));
        }
        for (String jid : journal.unsent()) {
            if (inFlight.containsKey(jid)) {
                continue;
            }
            JobReturn ret;
            try {
                ret = JobReturn.fromWire(SaltPack.unpack(journal.read(jid, "ret")) instanceof Map<?, ?> m ? m : null);
            } catch (MalformedEnvelopeException e) {
                log.warn("{}: the journalled return of job {} is not a return ({}); it is not sent", agentId, jid,
                        e.getMessage());
                journal.acknowledged(jid);
                continue;
            }
            send(jid, ret);
        }
        journal.prune();
    }

    /**
     * A {@code plan.execute} job cut short by a stop: its plan runs again from the start (once after a crash, or after
     * each reboot it waited for, within its expectReboots), or its error result is journalled as the job's return.
     */
    private void restartOrAnswer(String jid, Map<?, ?> job, List<?> args, String plan) {
        switch (restartablePlans.read(plan).atStart()) {
            case PlanRestarts.Decision.Restart restart -> {
                restartablePlans.write(plan, restart.next());
                log.info("{}: job {} ran a plan cut short by {}; running it again from the start", agentId, jid,
                        restart.afterReboot() ? "a reboot it waited for" : "a stop of the agent");
                inFlight.put(jid, Map.of("jid", jid, "fun", "plan.execute", "arg", args, "pid", ProcessHandle.current().pid()));
                Thread.ofVirtual().name("plan-restart-" + jid).start(() -> rerun(jid, job, args));
            }
            case PlanRestarts.Decision.Answer answer -> {
                restartablePlans.clear(plan);
                Map<String, Object> document = ExecutionResult.failure(PlanRunner.newId(), planSourceId(plan), answer.error(),
                        java.time.Instant.now()).toWire();
                journal.finish(jid, SaltPack.pack(JobReturn.of(jid, "plan.execute", args, document, 1).toWire()));
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
            finish(jid, fun, args, () -> calls.call(fun, args));
        } finally {
            inFlight.remove(jid);
        }
    }

    private void send(String jid, JobReturn ret) {
        if (returns.send(ret)) {
            journal.acknowledged(jid);
        } else {
            log.warn("{}: the return of job {} was not acknowledged; it will be sent again", agentId, jid);
        }
    }
}
