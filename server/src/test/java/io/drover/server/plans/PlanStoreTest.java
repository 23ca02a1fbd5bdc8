package io.drover.server.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.plans.PlanRun;
import io.drover.server.plans.PlanStore.PlanRow;
import io.drover.server.store.Sql;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/** Execution plans and their log lines on SQLite and on the real PostgreSQL. */
class PlanStoreTest {
    static final OffsetDateTime T0 = OffsetDateTime.of(2026, 11, 25, 3, 0, 0, 123_456_000, ZoneOffset.ofHours(8));
    final PlanStore repository = new PlanStore();

    static PlanRow plan(String id, String name, OffsetDateTime at) {
        return new PlanRow(id, name, "20261125030000123456", "web-*", "glob", List.of("web-1", "web-2"),
                Map.of("steps", List.of(Map.of("name", "install", "timeout", 30, "retry", true)), "vars", Map.of()), "alice", at);
    }

    @OnBothDatabases
    void plansRoundTripAndAreListedNewestFirst(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            PlanRow first = plan("p-1", "install exporters", T0);
            repository.insert(h, first);
            repository.insert(h, plan("p-3", null, T0.plusMinutes(5)));
            repository.insert(h, plan("p-2", "same time as p-3", T0.plusMinutes(5)));

            PlanRow found = repository.find(h, "p-1").orElseThrow();
            assertThat(found).usingRecursiveComparison().ignoringFields("createdAt").isEqualTo(first);
            assertThat(found.createdAt().toInstant()).isEqualTo(T0.toInstant());
            assertThat(repository.find(h, "p-3").orElseThrow().name()).isNull();
            assertThat(repository.find(h, "p-9")).isEmpty();
            assertThat(repository.exists(h, "p-2")).isTrue();
            assertThat(repository.exists(h, "p-9")).isFalse();

            assertThat(repository.newest(h, 10)).extracting(PlanRow::id).containsExactly("p-2", "p-3", "p-1");
            assertThat(repository.newest(h, 2)).extracting(PlanRow::id).containsExactly("p-2", "p-3");
            assertThat(repository.newest(h, 0)).isEmpty();
        }));
    }

    @OnBothDatabases
    void logLinesAreKeptInOrderPerPlanAndCountedPerAgent(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            repository.insert(h, plan("p-1", "a", T0));
            repository.insert(h, plan("p-2", "b", T0));
            repository.insertLog(h, "p-1", "web-1", "INFO", "downloading", T0.plusSeconds(1));
            repository.insertLog(h, "p-2", "web-1", "INFO", "other plan", T0.plusSeconds(1));
            repository.insertLog(h, "p-1", "web-2", "ERROR", "disk full: 日本語", T0.plusSeconds(2));
            repository.insertLog(h, "p-1", "web-1", "WARN", "slow", T0);

            List<PlanRun.LogLine> logs = repository.logs(h, "p-1", 10);
            assertThat(logs).extracting(PlanRun.LogLine::body).containsExactly("downloading", "disk full: 日本語", "slow");
            assertThat(logs).extracting(PlanRun.LogLine::seq).isSorted().doesNotHaveDuplicates();
            PlanRun.LogLine error = logs.get(1);
            assertThat(List.of(error.agentId(), error.level())).containsExactly("web-2", "ERROR");
            assertThat(error.time().toInstant()).isEqualTo(T0.plusSeconds(2).toInstant());
            assertThat(repository.logs(h, "p-1", 2)).extracting(PlanRun.LogLine::body).containsExactly("downloading", "disk full: 日本語");
            assertThat(repository.logs(h, "p-9", 10)).isEmpty();
            assertThat(repository.countLogs(h, "p-1", "web-1")).isEqualTo(2);
            assertThat(repository.countLogs(h, "p-1", "web-3")).isZero();
            assertThat(repository.countLogs(h, "p-2", "web-1")).isEqualTo(1);
        }));
    }

    @OnBothDatabases
    void theSchemaRefusesDuplicatePlansAndLogsOfUnknownPlansAndDeletingAPlanDeletesItsLogs(String kind) {
        TestDatabases.on(kind, db -> {
            db.jdbi().useTransaction(h -> {
                repository.insert(h, plan("p-1", "a", T0));
                repository.insertLog(h, "p-1", "web-1", "INFO", "x", T0);
            });
            assertThatThrownBy(() -> db.jdbi().useTransaction(h -> repository.insert(h, plan("p-1", "again", T0))))
                    .satisfies(e -> assertThat(Sql.violatedConstraint(e)).isEqualTo("constraint"));
            assertThatThrownBy(() -> db.jdbi().useTransaction(h -> repository.insertLog(h, "p-9", "web-1", "INFO", "x", T0)))
                    .satisfies(e -> assertThat(Sql.violatedConstraint(e)).isEqualTo("constraint"));
            db.jdbi().useTransaction(h -> {
                assertThat(repository.find(h, "p-1").orElseThrow().name()).isEqualTo("a");
                h.execute("DELETE FROM plan_run WHERE id = 'p-1'");
                assertThat(repository.logs(h, "p-1", 10)).isEmpty();
            });
        });
    }
}
