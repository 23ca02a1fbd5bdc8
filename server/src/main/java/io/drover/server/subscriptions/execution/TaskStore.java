package io.drover.server.subscriptions.execution;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.model.subscriptions.TaskInfo.SubStep;
import io.drover.server.events.EventStore;
import io.drover.server.store.GroupCommit;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/** Tasks and their instance records (each with its steps and sub-steps as JSON): the SQL of running subscriptions. */
public final class TaskStore {
    private static final TypeReference<List<StepRecord>> STEPS = new TypeReference<>() {
    };

    /** One instance of a new task: its id, host, and the steps planned for it. */
    record NewInstance(String instanceId, Long hostId, List<StepRecord> steps) {
    }

    private final Jdbi jdbi;
    private final EventStore events;
    private final Clock clock;
    /** An instance's progress (started, steps, finished): written as it happens by every running instance at once. */
    private final GroupCommit progress;

    public TaskStore(Jdbi jdbi, EventStore events, Clock clock) {
        this.jdbi = jdbi;
        this.events = events;
        this.clock = clock;
        this.progress = new GroupCommit(jdbi, 500);
    }

    /** Creates a RUNNING task with its PENDING instances and records the start event, in one transaction. */
    long create(long subscriptionId, String trigger, String actor, List<NewInstance> instances) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        long taskId = jdbi.inTransaction(h -> {
            long id = h.createUpdate("""
                            INSERT INTO task (subscription_id, status, trigger_kind, actor, created_at, started_at)
                            VALUES (:sub, :status, :trigger, :actor, :now, :now)""")
                    .bind("sub", subscriptionId).bind("status", RunStatus.RUNNING.wire()).bind("trigger", trigger)
                    .bind("actor", actor).bind("now", now)
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
            var insert = h.prepareBatch("""
                    INSERT INTO task_instance (task_id, instance_id, bk_host_id, status, steps)
                    VALUES (:task, :instance, :host, :status, :steps)""");
            for (NewInstance i : instances) {
                insert.bind("task", id).bind("instance", i.instanceId()).bind("host", i.hostId())
                        .bind("status", RunStatus.PENDING.wire()).bind("steps", Sql.toJson(i.steps())).add();
            }
            insert.execute();
            events.append(h, "drover/subscription/" + subscriptionId + "/task/" + id + "/started", Map.of("trigger", trigger,
                    "instances", instances.size()));
            return id;
        });
        events.publishPending();
        return taskId;
    }

    public Optional<Long> runningTask(long subscriptionId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM task WHERE subscription_id = :sub AND status = :running")
                .bind("sub", subscriptionId).bind("running", RunStatus.RUNNING.wire()).mapTo(Long.class).findFirst());
    }

    void instanceStarted(long taskId, String instanceId) {
        progress.write(h -> h.createUpdate("UPDATE task_instance SET status = :status, started_at = :now "
                        + "WHERE task_id = :task AND instance_id = :instance").bind("status", RunStatus.RUNNING.wire())
                .bind("now", OffsetDateTime.now(clock)).bind("task", taskId).bind("instance", instanceId).execute());
    }

    void saveSteps(long taskId, String instanceId, List<StepRecord> steps) {
        String json = Sql.toJson(steps);
        progress.write(h -> h.createUpdate("UPDATE task_instance SET steps = :steps WHERE task_id = :task AND instance_id = :instance")
                .bind("steps", json).bind("task", taskId).bind("instance", instanceId).execute());
    }

    /** Records how an instance ended; a failed one is also the event {@code drover/subscription/task/<id>/instance/failed}. */
    void finishInstance(long taskId, String instanceId, RunStatus status, String error) {
        progress.write(h -> {
            h.createUpdate("""
                            UPDATE task_instance SET status = :status, error = :error, finished_at = :now,
                                   started_at = COALESCE(started_at, :now)
                            WHERE task_id = :task AND instance_id = :instance""")
                    .bind("status", status.wire()).bind("error", error).bind("now", OffsetDateTime.now(clock)).bind("task", taskId)
                    .bind("instance", instanceId).execute();
            if (status == RunStatus.FAILED) {
                Map<String, Object> data = new java.util.LinkedHashMap<>();
                data.put("task_id", taskId);
                data.put("instance_id", instanceId);
                h.createQuery("""
                                SELECT ti.bk_host_id, h.bk_biz_id FROM task_instance ti LEFT JOIN host h ON h.bk_host_id = ti.bk_host_id
                                WHERE ti.task_id = :task AND ti.instance_id = :instance""")
                        .bind("task", taskId).bind("instance", instanceId).map((rs, ctx) -> {
                            data.put("bk_host_id", rs.getObject(1) == null ? null : rs.getLong(1));
                            data.put("bk_biz_id", rs.getObject(2) == null ? null : rs.getLong(2));
                            return true;
                        }).findOne();
                data.put("error", error == null || error.length() <= 4096 ? error : error.substring(0, 4096));
                events.append(h, "drover/subscription/task/" + taskId + "/instance/failed", data);
            }
            return null;
        });
        if (status == RunStatus.FAILED) {
            events.publishPending();
        }
    }

    /** Every unfinished instance, step and sub-step of the task FAILED, the sub-steps' logs saying why. */
    void failUnfinished(long taskId, String why) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        jdbi.useTransaction(h -> {
            List<Map.Entry<String, List<StepRecord>>> unfinished = h.createQuery("""
                            SELECT instance_id, steps FROM task_instance WHERE task_id = :task AND status IN (:pending, :running)""")
                    .bind("task", taskId).bind("pending", RunStatus.PENDING.wire()).bind("running", RunStatus.RUNNING.wire())
                    .map((rs, ctx) -> Map.entry(rs.getString(1), Sql.fromJson(rs.getString(2), STEPS))).list();
            var update = h.prepareBatch("""
                    UPDATE task_instance SET status = :status, error = :why, finished_at = :now, steps = :steps
                    WHERE task_id = :task AND instance_id = :instance""");
            for (Map.Entry<String, List<StepRecord>> instance : unfinished) {
                update.bind("status", RunStatus.FAILED.wire()).bind("why", why).bind("now", now).bind("task", taskId)
                        .bind("instance", instance.getKey()).bind("steps", Sql.toJson(failed(instance.getValue(), why, now))).add();
            }
            if (!unfinished.isEmpty()) {
                update.execute();
            }
        });
    }

    private static List<StepRecord> failed(List<StepRecord> steps, String why, OffsetDateTime now) {
        return steps.stream().map(step -> new StepRecord(step.stepId(), step.action(), step.reason(),
                step.status().finished() ? step.status() : RunStatus.FAILED,
                step.subSteps() == null ? null : step.subSteps().stream().map(sub -> sub.status().finished() ? sub
                        : new SubStep(sub.name(), RunStatus.FAILED, sub.startedAt(), now, appended(sub.log(), why), sub.jid())).toList())).toList();
    }

    private static List<String> appended(List<String> log, String line) {
        List<String> out = new ArrayList<>(log == null ? List.of() : log);
        out.add(line);
        return out;
    }

    /** Ends the task with its status and the finished event; returns the subscription's id. */
    long finish(long taskId, RunStatus status, String error, Map<String, Integer> counts) {
        long sub = jdbi.inTransaction(h -> {
            h.createUpdate("UPDATE task SET status = :status, finished_at = :now, error = :error WHERE id = :id")
                    .bind("status", status.wire()).bind("now", OffsetDateTime.now(clock)).bind("error", error).bind("id", taskId).execute();
            long s = h.createQuery("SELECT subscription_id FROM task WHERE id = :id").bind("id", taskId).mapTo(Long.class).one();
            events.append(h, "drover/subscription/" + s + "/task/" + taskId + "/finished", Map.of("status", status.wire(),
                    "counts", counts));
            return s;
        });
        events.publishPending();
        return sub;
    }

    /** Instances per status. */
    public Map<String, Integer> counts(long taskId) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT status, COUNT(*) AS n FROM task_instance WHERE task_id = :task GROUP BY status")
                .bind("task", taskId).map((rs, ctx) -> Map.entry(rs.getString("status"), rs.getInt("n")))
                .forEach(e -> counts.put(e.getKey(), e.getValue())));
        return counts;
    }

    public Optional<TaskInfo> get(long taskId, boolean withInstances) {
        Optional<TaskInfo> task = jdbi.withHandle(h -> h.createQuery("SELECT * FROM task WHERE id = :id").bind("id", taskId)
                .map((rs, ctx) -> task(rs)).findOne());
        if (task.isEmpty()) {
            return task;
        }
        Map<String, Integer> counts = counts(taskId);
        List<TaskInfo.TaskInstance> instances = !withInstances ? null : jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM task_instance WHERE task_id = :task ORDER BY instance_id").bind("task", taskId)
                .map((rs, ctx) -> new TaskInfo.TaskInstance(rs.getString("instance_id"), Sql.nullableLong(rs, "bk_host_id"),
                        RunStatus.ofWire(rs.getString("status")), rs.getString("error"),
                        SqlTime.read(rs, "started_at"), SqlTime.read(rs, "finished_at"),
                        Sql.fromJson(rs.getString("steps"), STEPS))).list());
        TaskInfo t = task.get();
        return Optional.of(new TaskInfo(t.id(), t.subscriptionId(), t.status(), t.trigger(), t.actor(), t.createdAt(),
                t.startedAt(), t.finishedAt(), t.error(), counts, instances));
    }

    public List<Long> ids(long subscriptionId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM task WHERE subscription_id = :sub ORDER BY id DESC")
                .bind("sub", subscriptionId).mapTo(Long.class).list());
    }

    /** The last task that touched an instance, and how the instance ended in it. */
    public record LastTask(long taskId, RunStatus status) {
    }

    /** Instance id → the last task of the subscription that touched it. */
    public Map<String, LastTask> lastTaskOfInstances(long subscriptionId) {
        Map<String, LastTask> last = new LinkedHashMap<>();
        jdbi.useHandle(h -> h.createQuery("""
                        SELECT ti.instance_id, ti.task_id, ti.status FROM task_instance ti JOIN task t ON t.id = ti.task_id
                        WHERE t.subscription_id = :sub ORDER BY ti.task_id""").bind("sub", subscriptionId)
                .map((rs, ctx) -> Map.entry(rs.getString("instance_id"), new LastTask(rs.getLong("task_id"),
                        RunStatus.ofWire(rs.getString("status")))))
                .forEach(e -> last.put(e.getKey(), e.getValue())));
        return last;
    }

    /** The instances of the subscription's latest task that failed. */
    public List<String> failedInstances(long subscriptionId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT ti.instance_id FROM task_instance ti
                        WHERE ti.task_id = (SELECT MAX(id) FROM task WHERE subscription_id = :sub) AND ti.status = :failed""")
                .bind("sub", subscriptionId).bind("failed", RunStatus.FAILED.wire()).mapTo(String.class).list());
    }

    private static TaskInfo task(ResultSet rs) throws SQLException {
        return new TaskInfo(rs.getLong("id"), rs.getLong("subscription_id"), RunStatus.ofWire(rs.getString("status")),
                rs.getString("trigger_kind"), rs.getString("actor"), SqlTime.read(rs, "created_at"),
                SqlTime.read(rs, "started_at"), SqlTime.read(rs, "finished_at"),
                rs.getString("error"), Map.of(), null);
    }
}
