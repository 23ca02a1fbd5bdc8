package io.drover.agent.jobs;

import io.drover.agent.plans.ProcessGroups;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The processes one job has running, so that {@code saltutil.kill_job} can stop them all: every place that starts a
 * process for a job ({@code cmd.run}, {@code cmd.script}, a plan's python3 and scripts, a diagnosis operation)
 * reports it with {@link #started} on the job's thread. A job runs on one thread, and what it starts is started there.
 */
public final class JobProcesses {
    /** How long processes have after SIGTERM before SIGKILL. */
    public static final Duration GRACE = Duration.ofSeconds(3);

    private static final ThreadLocal<JobProcesses> CURRENT = new ThreadLocal<>();

    private final String jid;
    private final Runnable firstProcess;
    private final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
    private final Set<Process> processes = ConcurrentHashMap.newKeySet();
    private volatile boolean killed;

    /** {@code firstProcess} runs (on the job's thread) when the job starts its first process. */
    public JobProcesses(String jid, Runnable firstProcess) {
        this.jid = jid;
        this.firstProcess = firstProcess;
    }

    public String jid() {
        return jid;
    }

    /** Runs {@code body} as this job: the processes it starts on this thread are the job's. */
    public <T> T run(Supplier<T> body) {
        JobProcesses outer = CURRENT.get();
        CURRENT.set(this);
        try {
            return body.get();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    /**
     * A process the current job started (nothing outside a job); one started after the job was killed is killed at
     * once, so a kill that comes between two steps of a plan stops the plan at its next step.
     */
    public static void started(Process process) {
        JobProcesses job = CURRENT.get();
        if (job == null) {
            return;
        }
        job.processes.add(process);
        if (job.killed) {
            ProcessGroups.kill(process);
        } else if (job.started.compareAndSet(false, true)) {
            job.firstProcess.run();
        }
    }

    /** The process ended (or was given up); it is no longer the job's to kill. */
    public static void ended(Process process) {
        JobProcesses job = CURRENT.get();
        if (job != null) {
            job.processes.remove(process);
        }
    }

    /** Whether {@link #kill} was called: the job's return is marked killed. */
    public boolean killed() {
        return killed;
    }

    /**
     * SIGTERM to each process's group and to every descendant (one that left the group too); SIGKILL to those still
     * alive after {@code grace}. Answers how many processes were signalled.
     */
    public int kill(Duration grace) throws InterruptedException {
        killed = true;
        List<Process> leaders = new ArrayList<>(processes);
        Set<ProcessHandle> all = new LinkedHashSet<>();
        for (Process leader : leaders) {
            if (leader.isAlive()) {
                all.add(leader.toHandle());
            }
            leader.descendants().forEach(all::add);
        }
        for (Process leader : leaders) {
            ProcessGroups.terminate(leader);
        }
        all.forEach(ProcessHandle::destroy);
        try {
            CompletableFuture.allOf(all.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new))
                    .get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            for (Process leader : leaders) {
                ProcessGroups.kill(leader);
            }
            all.forEach(ProcessHandle::destroyForcibly);
        }
        return all.size();
    }
}
