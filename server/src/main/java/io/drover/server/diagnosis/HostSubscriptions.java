package io.drover.server.diagnosis;

import io.drover.model.subscriptions.RunRequest;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.server.auth.Principal;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.subscriptions.SubscriptionService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code rerunSubscriptions} action: every subscription of the diagnosis's business that deployed something on
 * the host is run again for that host's instances, acting for that business only, and the action waits for those
 * tasks; it succeeds when each one succeeded (or had nothing to do). Subscriptions of other businesses (their copies
 * stay on a host that moved) are left alone.
 */
final class HostSubscriptions implements OperationExecutor.SubscriptionReruns {
    private static final Principal SYSTEM = Principal.system("diagnosis");

    private final SubscriptionService subscriptions;
    private final DeploymentStore deployments;
    private final Clock clock;

    HostSubscriptions(SubscriptionService subscriptions, DeploymentStore deployments, Clock clock) {
        this.subscriptions = subscriptions;
        this.deployments = deployments;
        this.clock = clock;
    }

    @Override
    public OperationExecutor.Result.Done rerun(long bizId, long hostId, Duration timeout) {
        Principal system = SYSTEM.limitedTo(java.util.Set.of(bizId));
        Map<Long, TreeSet<String>> instances = new TreeMap<>();
        java.util.Set<Long> ofBusiness = new java.util.HashSet<>();
        subscriptions.list(system, bizId, null).forEach(s -> ofBusiness.add(s.id()));
        deployments.ofHost(hostId).stream().filter(r -> ofBusiness.contains(r.subscriptionId()))
                .forEach(r -> instances.computeIfAbsent(r.subscriptionId(), k -> new TreeSet<>()).add(r.instanceId()));
        if (instances.isEmpty()) {
            return new OperationExecutor.Result.Done(false, Map.of(), "no subscription of business " + bizId + " deploys to host " + hostId);
        }
        Map<String, String> results = new LinkedHashMap<>();
        List<Long> tasks = new ArrayList<>();
        instances.forEach((subscription, ids) -> {
            Long task = subscriptions.runNow(system, subscription, new RunRequest(null, List.copyOf(ids))).taskId();
            results.put("subscription." + subscription + ".task", task == null ? "nothing to do" : String.valueOf(task));
            if (task != null) {
                tasks.add(task);
            }
        });
        Instant deadline = clock.instant().plus(timeout);
        List<String> failed = new ArrayList<>();
        for (long task : tasks) {
            TaskInfo info = subscriptions.task(system, task);
            while (!info.status().finished() && clock.instant().isBefore(deadline)) {
                try {
                    Thread.sleep(200); // a poll of the task's stored status
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new OperationExecutor.Result.Done(false, results, "interrupted while waiting for task " + task);
                }
                info = subscriptions.task(system, task);
            }
            results.put("task." + task + ".status", info.status().name());
            if (info.status() != RunStatus.SUCCESS) {
                failed.add("task " + task + " is " + info.status() + (info.error() == null ? "" : ": " + info.error()));
            }
        }
        return new OperationExecutor.Result.Done(failed.isEmpty(), results, failed.isEmpty() ? null : String.join("; ", failed));
    }
}
