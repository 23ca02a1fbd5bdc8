package io.drover.server.agentupgrade;

import io.drover.core.agents.AgentPackageName;
import io.drover.core.agentupgrade.Rollout;
import io.drover.core.packages.Version;
import io.drover.model.agents.AgentPackageInfo;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentupgrade.UpgradeHostState;
import io.drover.server.agentinstall.LogLines;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * One agent's upgrade: fails at once when it is offline or does not answer {@code test.version}; skipped when it runs
 * the version already; fails when it runs a newer version and the task does not allow downgrades; else sent
 * {@code agent.upgrade} with the package for its architecture (served by the fileserver; no more hand-overs at the
 * same time than the server's permits), and then waited for until it reports the version (its heartbeat, or
 * {@code test.version} asked now and then while it is online). Back with its old version when the wait ends: its
 * installer rolled it back, and says why in the log on the host whose path the agent gave.
 */
final class HostUpgrade {
    /**
     * How often the registry is looked at, how long a {@code test.version} call may take and how often one is sent;
     * {@code handOver}: how long the agent may take to fetch, check and unpack the package before it answers;
     * {@code restartMargin}: beyond the installer's own wait for the sign-in, the time to stop the agent, start the new
     * version and, after a rollback, start the old one.
     */
    record Timing(Duration poll, Duration versionCall, Duration versionCallEvery, Duration handOver, Duration restartMargin) {
        static final Timing DEFAULT = new Timing(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofMinutes(5), Duration.ofSeconds(60));
    }

    /** A package to send: its row and its path under the fileserver's root. */
    record Package(AgentPackageInfo info, String source) {
    }

    /** What a task asks of each agent: the version, the wait for it, and whether an agent may go down to it. */
    record Order(String version, int waitSeconds, boolean allowDowngrade) {
    }

    /** What every agent of a task shares; {@code handOvers}: the server's permits for hand-overs at the same time. */
    record Needs(AgentCalls calls, AgentUpgradeService.Agents agents, Function<String, Optional<Package>> packageFor,
                 UpgradeStore store, Clock clock, Timing timing, Semaphore handOvers) {
    }

    private final long taskId;
    private final String agent;
    private final String version;
    private final int waitSeconds;
    private final boolean allowDowngrade;
    private final Rollout rollout;
    private final Needs needs;
    private String arch;
    private String fromVersion;
    private String reported;
    private String log;
    private OffsetDateTime startedAt;

    HostUpgrade(long taskId, String agent, Order order, Rollout rollout, Needs needs) {
        this.taskId = taskId;
        this.agent = agent;
        this.version = order.version();
        this.waitSeconds = order.waitSeconds();
        this.allowDowngrade = order.allowDowngrade();
        this.rollout = rollout;
        this.needs = needs;
    }

    void run() {
        startedAt = OffsetDateTime.now(needs.clock());
        try {
            upgrade();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            end(UpgradeHostState.FAILED, "the server stopped while this agent was upgraded: see its version in drover agent list");
        } catch (RuntimeException e) {
            end(UpgradeHostState.FAILED, "the upgrade broke off: " + e.getMessage());
        }
    }

    private void upgrade() throws InterruptedException {
        if (!needs.agents().online(agent)) {
            end(UpgradeHostState.FAILED, "offline: the agent is not connected (start it, or leave it out of the target)");
            return;
        }
        arch = shown(needs.agents().arch(agent), 16);
        AgentCalls.Outcome<AgentResult.Text> asked = needs.calls().call(agent, new AgentCall.AgentVersion(),
                CallOptions.within(needs.timing().versionCall()));
        if (!asked.ok()) {
            end(UpgradeHostState.FAILED, "did not answer test.version: " + shown(asked.text(), 300));
            return;
        }
        if (versionOf(asked) == null) {
            end(UpgradeHostState.FAILED, "did not report a version: its answer to test.version was empty");
            return;
        }
        fromVersion = shown(versionOf(asked), 64);
        reported = fromVersion;
        if (version.equals(fromVersion)) {
            end(UpgradeHostState.SKIPPED, null);
            return;
        }
        Version running = Version.tryParse(fromVersion);
        if (!allowDowngrade && running != null && running.compareTo(Version.parse(version)) > 0) {
            end(UpgradeHostState.FAILED, "runs " + fromVersion + ", newer than " + version + ": a downgrade must be allowed "
                    + "(allow_downgrade, drover agent upgrade --allow-downgrade)");
            return;
        }
        if (!AgentPackageName.ARCHES.contains(arch)) {
            end(UpgradeHostState.FAILED, "reports architecture " + (arch == null ? "(none)" : "'" + arch + "'")
                    + ": agent packages are for " + String.join(" and ", AgentPackageName.ARCHES));
            return;
        }
        Optional<Package> pkg = needs.packageFor().apply(arch);
        if (pkg.isEmpty()) {
            end(UpgradeHostState.FAILED, "no agent package " + version + " is stored for " + arch + " (was it deleted?)");
            return;
        }
        needs.handOvers().acquire();
        AgentCalls.Outcome<AgentResult.UpgradeHandedOver> handed;
        try {
            save(UpgradeHostState.PENDING, null, null);
            handed = needs.calls().call(agent,
                    new AgentCall.UpgradeAgent(pkg.get().source(), pkg.get().info().sha256(), version, waitSeconds),
                    CallOptions.within(needs.timing().handOver()));
        } finally {
            needs.handOvers().release();
        }
        if (!handed.ok()) {
            end(UpgradeHostState.FAILED, handed.answered() ? "refused the upgrade: " + shown(handed.text(), 300)
                    : "did not answer the upgrade within " + needs.timing().handOver().toSeconds() + " s: "
                    + shown(handed.text(), 300)
                    + " (its version may still change: see drover agent list)");
            return;
        }
        log = shown(handed.result().log(), 1024);
        rollout.record(agent, UpgradeHostState.HANDED_OVER);
        save(UpgradeHostState.HANDED_OVER, null, null);
        awaitVersion();
    }

    /** Until the agent reports the version, or the wait ends. */
    private void awaitVersion() throws InterruptedException {
        // the installer waits waitSeconds for the new version's sign-in, and may then roll back
        Instant deadline = needs.clock().instant().plusSeconds(waitSeconds).plus(needs.timing().restartMargin());
        Instant nextCall = needs.clock().instant().plus(needs.timing().poll());
        boolean answered = false;
        while (needs.clock().instant().isBefore(deadline)) {
            if (needs.agents().online(agent) && version.equals(needs.agents().version(agent))) {
                reported = version;
                end(UpgradeHostState.SUCCEEDED, null);
                return;
            }
            Instant now = needs.clock().instant();
            // an offline agent cannot answer: a call would only wait out its timeout
            if (!now.isBefore(nextCall) && needs.agents().online(agent)) {
                Duration left = Duration.between(now, deadline);
                AgentCalls.Outcome<AgentResult.Text> asked = needs.calls().call(agent, new AgentCall.AgentVersion(),
                        CallOptions.within(left.compareTo(needs.timing().versionCall()) < 0 ? left : needs.timing().versionCall()));
                if (asked.ok() && versionOf(asked) != null) {
                    answered = true;
                    reported = shown(versionOf(asked), 64);
                    if (version.equals(reported)) {
                        end(UpgradeHostState.SUCCEEDED, null);
                        return;
                    }
                }
                nextCall = needs.clock().instant().plus(needs.timing().versionCallEvery());
            }
            Thread.sleep(needs.timing().poll());
        }
        String seeLog = log == null || log.isEmpty() ? "" : "; see " + log + " on the host";
        end(UpgradeHostState.FAILED, !answered ? "did not come back with " + version + " within "
                + (waitSeconds + needs.timing().restartMargin().toSeconds()) + " s" + seeLog
                : reported.equals(fromVersion) ? "rolled back to " + fromVersion + seeLog
                : "reports version " + reported + ", not " + version + seeLog);
    }

    private void end(UpgradeHostState state, String error) {
        if (!rollout.state(agent).ended()) {
            rollout.record(agent, state);
        }
        save(state, error, OffsetDateTime.now(needs.clock()));
    }

    private void save(UpgradeHostState state, String error, OffsetDateTime finishedAt) {
        needs.store().saveHost(taskId, agent, new UpgradeStore.HostRow(arch, fromVersion, reported, state,
                error == null ? null : LogLines.clean(error, 2000), log, startedAt, finishedAt));
    }

    /** The version a {@code test.version} answer holds; null when the agent answered without one. */
    private static String versionOf(AgentCalls.Outcome<AgentResult.Text> asked) {
        return asked.result() == null ? null : asked.result().text();
    }

    /** What an agent reported, made printable and bounded (null stays null). */
    private static String shown(String reported, int max) {
        return reported == null ? null : LogLines.clean(reported, max - 1);
    }
}
