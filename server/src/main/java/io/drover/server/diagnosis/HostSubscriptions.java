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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code rerunSubscriptions} action: every subscription of the diagnosis's business that deployed something on
 * the host is run again for that host's instances, acting for that business only, and the action waits for those
 * tasks; it succeeds when each one succeeded (or had nothing to do). Subscriptions of other businesses (their copies
 * stay on a host that moved) are left alone. The tasks started are recorded on the node's checkpoint before the wait,
 * so a node resumed after a stop waits for those tasks instead of starting new ones.
 */
final class HostSubscriptions implements OperationDispatcher.SubscriptionReruns {
    private static final Principal SYSTEM = Principal.system("diagnosis");
    /** Marks a checkpoint holding the tasks started ({@code tasks:<subscription>=<task or ->,…}) rather than a job id. */
    static final String TASKS = "tasks:";

    /** What the action needs of subscriptions, acting for one business. */
    interface Subscriptions {
        /** The instances each subscription of the business deployed on the host, by subscription id. */
        SortedMap<Long, SortedSet<String>> deployedOn(long bizId, long hostId);

        /** Runs a subscription again for these instances: its task, or null when there was nothing to do. */
        Long runNow(long bizId, long subscription, List<String> instances);

        TaskInfo task(long bizId, long task);
    }

    private final Subscriptions subscriptions;
    private final Clock clock;

    HostSubscriptions(SubscriptionService subscriptions, DeploymentStore deployments, Clock clock) {
        this(service(subscriptions, deployments), clock);
    }

    HostSubscriptions(Subscriptions subscriptions, Clock clock) {
        this.subscriptions = subscriptions;
        this.clock = clock;
    }

    private static Subscriptions service(SubscriptionService service, DeploymentStore deployments) {
        return new Subscriptions() {
            @Override
            public SortedMap<Long, SortedSet<String>> deployedOn(long bizId, long hostId) {
                Set<Long> ofBusiness = new HashSet<>();
                service.list(of(bizId), bizId, null).forEach(s -> ofBusiness.add(s.id()));
                SortedMap<Long, SortedSet<String>> instances = new TreeMap<>();
                deployments.ofHost(hostId).stream().filter(r -> ofBusiness.contains(r.subscriptionId()))
                        .forEach(r -> instances.computeIfAbsent(r.subscriptionId(), k -> new TreeSet<>()).add(r.instanceId()));
                return instances;
            }

            @Override
            public Long runNow(long bizId, long subscription, List<String> instances) {
                return service.runNow(of(bizId), subscription, new RunRequest(null, instances)).taskId();
            }

            @Override
            public TaskInfo task(long bizId, long task) {
                return service.task(of(bizId), task);
            }

            private static Principal of(long bizId) {
                return SYSTEM.limitedTo(Set.of(bizId));
            }
        };
    }

    @Override
    public OperationDispatcher.Result.Done rerun(long bizId, long hostId, Duration timeout, OperationDispatcher.Sending how) {
        Map<Long, Long> started = how.sentJid() == null ? null : recorded(how.sentJid());
        if (started == null) {
            SortedMap<Long, SortedSet<String>> instances = subscriptions.deployedOn(bizId, hostId);
            if (instances.isEmpty()) {
                return new OperationDispatcher.Result.Done(false, Map.of(), "no subscription of business " + bizId + " deploys to host " + hostId);
            }
            started = new LinkedHashMap<>();
            for (Map.Entry<Long, SortedSet<String>> deployed : instances.entrySet()) {
                started.put(deployed.getKey(), subscriptions.runNow(bizId, deployed.getKey(), List.copyOf(deployed.getValue())));
            }
            try {
                how.sending().accept(checkpoint(started));
            } catch (RuntimeException e) {
                // the diagnosis ended (a cancel) while the tasks were being started: they run on, unwatched
                return new OperationDispatcher.Result.Done(false, Map.of(), "not waiting for the tasks started: " + e.getMessage());
            }
        }
        Map<String, String> results = new LinkedHashMap<>();
        List<Long> tasks = new ArrayList<>();
        started.forEach((subscription, task) -> {
            results.put("subscription." + subscription + ".task", task == null ? "nothing to do" : String.valueOf(task));
            if (task != null) {
                tasks.add(task);
            }
        });
        Instant deadline = clock.instant().plus(timeout);
        List<String> failed = new ArrayList<>();
        for (long task : tasks) {
            TaskInfo info = subscriptions.task(bizId, task);
            while (!info.status().finished() && clock.instant().isBefore(deadline)) {
                try {
                    Thread.sleep(200); // a poll of the task's stored status
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new OperationDispatcher.Result.Done(false, results, "interrupted while waiting for task " + task);
                }
                info = subscriptions.task(bizId, task);
            }
            results.put("task." + task + ".status", info.status().wire());
            if (info.status() != RunStatus.SUCCEEDED) {
                failed.add("task " + task + " is " + info.status() + (info.error() == null ? "" : ": " + info.error()));
            }
        }
        return new OperationDispatcher.Result.Done(failed.isEmpty(), results, failed.isEmpty() ? null : String.join("; ", failed));
    }

    /** The checkpoint text for the tasks started, by subscription (null: nothing to do). */
    static String checkpoint(Map<Long, Long> started) {
        StringBuilder text = new StringBuilder(TASKS);
        started.forEach((subscription, task) -> text.append(text.length() == TASKS.length() ? "" : ",").append(subscription).append('=')
                .append(task == null ? "-" : String.valueOf(task)));
        return text.toString();
    }

    /** The tasks a checkpoint recorded, or null when it records none (a stop came before they were started). */
    static Map<Long, Long> recorded(String checkpoint) {
        if (!checkpoint.startsWith(TASKS) || checkpoint.length() == TASKS.length()) {
            return null;
        }
        Map<Long, Long> started = new LinkedHashMap<>();
        for (String entry : checkpoint.substring(TASKS.length()).split(",")) {
            String[] pair = entry.split("=", 2);
            if (pair.length != 2 || !pair[0].matches("[0-9]{1,18}") || !pair[1].matches("-|[0-9]{1,18}")) {
                return null;
            }
            started.put(Long.parseLong(pair[0]), pair[1].equals("-") ? null : Long.parseLong(pair[1]));
        }
        return started;
    }
}
