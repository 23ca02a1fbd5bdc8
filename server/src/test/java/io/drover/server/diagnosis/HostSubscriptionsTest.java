package io.drover.server.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The rerunSubscriptions action records the tasks it starts, and a node resumed after a stop waits for those. */
class HostSubscriptionsTest {
    /** Two subscriptions deployed on host 7 of business 2; tasks finish when a test says so. */
    static final class Subscriptions implements HostSubscriptions.Subscriptions {
        final List<Long> runs = new CopyOnWriteArrayList<>();
        final Map<Long, RunStatus> statuses = new ConcurrentHashMap<>();
        final AtomicLong nextTask = new AtomicLong(100);

        @Override
        public SortedMap<Long, SortedSet<String>> deployedOn(long bizId, long hostId) {
            SortedMap<Long, SortedSet<String>> deployed = new TreeMap<>();
            deployed.put(5L, new TreeSet<>(List.of("i-1")));
            deployed.put(6L, new TreeSet<>(List.of("i-2")));
            deployed.put(9L, new TreeSet<>(List.of("i-3")));
            return deployed;
        }

        @Override
        public Long runNow(long bizId, long subscription, List<String> instances) {
            runs.add(subscription);
            if (subscription == 9L) {
                return null; // nothing to do
            }
            long task = nextTask.incrementAndGet();
            statuses.put(task, RunStatus.RUNNING);
            return task;
        }

        @Override
        public TaskInfo task(long bizId, long task) {
            return new TaskInfo(task, 0, statuses.get(task), "diagnosis", "diagnosis", null, null, null, null, Map.of(), List.of());
        }
    }

    @Test
    void aResumedNodeWaitsForTheTasksItRecordedInsteadOfStartingNewOnes() {
        Subscriptions subscriptions = new Subscriptions();
        HostSubscriptions reruns = new HostSubscriptions(subscriptions, Clock.systemUTC());
        AtomicReference<String> recorded = new AtomicReference<>();

        // The first run starts the tasks, records them, and (as a stop would cut it) ends before they finish.
        OperationDispatcher.Result.Done cut = reruns.rerun(2, 7, Duration.ZERO, new OperationDispatcher.Sending(null, recorded::set));
        assertThat(subscriptions.runs).containsExactly(5L, 6L, 9L);
        assertThat(recorded.get()).isEqualTo("tasks:5=101,6=102,9=-");
        assertThat(cut.succeeded()).isFalse();

        subscriptions.statuses.replaceAll((task, status) -> RunStatus.SUCCEEDED);
        OperationDispatcher.Result.Done resumed = reruns.rerun(2, 7, Duration.ofSeconds(10),
                new OperationDispatcher.Sending(recorded.get(), jid -> { throw new AssertionError("a resumed node records nothing new"); }));
        assertThat(subscriptions.runs).as("no new task").containsExactly(5L, 6L, 9L);
        assertThat(resumed.succeeded()).isTrue();
        assertThat(resumed.results()).containsEntry("subscription.5.task", "101").containsEntry("subscription.6.task", "102")
                .containsEntry("subscription.9.task", "nothing to do").containsEntry("task.101.status", "SUCCESS")
                .containsEntry("task.102.status", "SUCCESS");
    }

    @Test
    void checkpointsRoundTripAndAnythingElseStartsAfresh() {
        Map<Long, Long> started = new java.util.LinkedHashMap<>();
        started.put(5L, 101L);
        started.put(9L, null);
        assertThat(HostSubscriptions.recorded(HostSubscriptions.checkpoint(started))).isEqualTo(started);
        for (String other : new String[] {"20261127123456789012", "tasks:", "tasks:5=x", "tasks:5", "tasks:=1", "tasks:5=1,,6=2"}) {
            assertThat(HostSubscriptions.recorded(other)).as(other).isNull();
        }
        Subscriptions subscriptions = new Subscriptions();
        subscriptions.statuses.put(101L, RunStatus.SUCCEEDED);
        new HostSubscriptions(subscriptions, Clock.systemUTC()).rerun(2, 7, Duration.ZERO,
                new OperationDispatcher.Sending("20261127123456789012", jid -> { }));
        assertThat(subscriptions.runs).as("a job id from before is no record of tasks").containsExactly(5L, 6L, 9L);
    }
}
