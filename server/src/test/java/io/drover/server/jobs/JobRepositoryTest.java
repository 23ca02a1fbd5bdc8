package io.drover.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.jobs.JobResult;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The job repository on SQLite and on the real PostgreSQL. */
class JobRepositoryTest {
    final JobRepository repository = new JobRepository(Clock.systemUTC());

    @OnBothDatabases
    void aJobItsReturnsAndWhoIsStillMissing(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            repository.insertJob(h, "20261125000000000001", "cmd.run", List.of("uptime", Map.of("__kwarg__", true, "cwd", "/")),
                    null, "web-*", "glob", List.of("web-1", "web-2", "web-3"), "alice");
            repository.insertJob(h, "20261125000000000002", "test.ping", List.of(), "v1:sealed", "db-1", "list", List.of("db-1"), "bob");
            assertThat(repository.sealedArg(h, "20261125000000000001")).isEmpty();
            assertThat(repository.sealedArg(h, "20261125000000000002")).contains("v1:sealed");
            assertThat(repository.awaiting(h, List.of("20261125000000000001", "20261125000000000002")))
                    .containsEntry("20261125000000000001", Set.of("web-1", "web-2", "web-3"))
                    .containsEntry("20261125000000000002", Set.of("db-1"));

            repository.insertReturns(h, List.of(new JobRepository.ReturnRow("20261125000000000001", "web-2", "\"up 3 days\"", 0, true),
                    new JobRepository.ReturnRow("20261125000000000001", "web-3", "\"sh: uptime: not found\"", 127, false)));
            repository.insertReturns(h, List.of());
            assertThat(repository.awaiting(h, List.of("20261125000000000001"))).containsEntry("20261125000000000001", Set.of("web-1"));

            JobResult job = repository.find(h, "20261125000000000001").orElseThrow();
            assertThat(job.fun()).isEqualTo("cmd.run");
            assertThat(job.arg()).isEqualTo(List.of("uptime", Map.of("__kwarg__", true, "cwd", "/")));
            assertThat(job.minions()).containsExactly("web-1", "web-2", "web-3");
            assertThat(job.missing()).containsExactly("web-1");
            assertThat(job.returns().get("web-2").ret()).isEqualTo("up 3 days");
            assertThat(job.returns().get("web-3").retcode()).isEqualTo(127);
            assertThat(job.returns().get("web-3").success()).isFalse();
            assertThat(repository.find(h, "20261125000000000009")).isEmpty();
        }));
    }
}
