package io.drover.server.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.diagnosis.DiagnosisProgress;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisPhase;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.server.diagnosis.DiagnosisStore.ObjectRow;
import io.drover.server.diagnosis.DiagnosisStore.Progress;
import io.drover.server.diagnosis.DiagnosisStore.Row;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/** The diagnosis library, diagnoses with their checkpoints and alert fingerprints, on SQLite and on the real PostgreSQL. */
class DiagnosisStoreTest {
    static final OffsetDateTime T0 = OffsetDateTime.of(2026, 11, 25, 3, 0, 0, 123_456_000, ZoneOffset.UTC);
    final DiagnosisStore repository = new DiagnosisStore();

    static ObjectRow object(String kind, String name, Map<String, Object> spec, List<List<Integer>> paths, OffsetDateTime lastSchedule) {
        return new ObjectRow(kind, name, new KubeDocument("diagnosis.kubediag.org/v1", kind, Map.of("name", name), spec), paths,
                false, lastSchedule, T0);
    }

    static ObjectRow set(String name, String... operations) {
        List<Object> nodes = new java.util.ArrayList<>(List.of(Map.of("to", List.of(1))));
        for (String operation : operations) {
            nodes.add(Map.of("operation", operation, "to", List.of()));
        }
        return object("OperationSet", name, Map.of("adjacencyList", nodes), List.of(List.of(1)), null);
    }

    static void assertSameObject(ObjectRow actual, ObjectRow expected) {
        assertThat(actual).usingRecursiveComparison().ignoringFields("lastScheduleAt", "updatedAt").isEqualTo(expected);
        assertThat(actual.updatedAt().toInstant()).isEqualTo(expected.updatedAt().toInstant());
    }

    @OnBothDatabases
    void libraryObjectsArePutReplacedListedAndDeleted(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            ObjectRow operation = new ObjectRow("Operation", "disk-usage", new KubeDocument("diagnosis.kubediag.org/v1", "Operation",
                    Map.of("name", "disk-usage", "labels", Map.of("team", "infra")), Map.of("processor", Map.of("timeoutSeconds", 30))),
                    null, true, null, T0);
            ObjectRow trigger = object("Trigger", "on-alert", Map.of("operationSet", "disk"), null, T0.minusDays(1));
            repository.putObject(h, operation);
            repository.putObject(h, trigger);
            repository.putObject(h, set("net", "ping"));
            repository.putObject(h, set("disk", "ping", "disk-usage"));
            repository.putObject(h, object("OperationSet", "blank", null, null, null));

            assertSameObject(repository.object(h, "Operation", "disk-usage").orElseThrow(), operation);
            assertThat(repository.object(h, "Operation", "disk-usage").orElseThrow().lastScheduleAt()).isNull();
            assertThat(repository.object(h, "Trigger", "on-alert").orElseThrow().lastScheduleAt().toInstant())
                    .isEqualTo(T0.minusDays(1).toInstant());
            assertThat(repository.object(h, "OperationSet", "disk").orElseThrow().paths()).containsExactly(List.of(1));
            assertThat(repository.object(h, "Operation", "disk")).as("kind and name together").isEmpty();
            assertThat(repository.objects(h, "OperationSet")).extracting(ObjectRow::name).containsExactly("blank", "disk", "net");
            assertThat(repository.objects(h, "Diagnosis")).isEmpty();

            ObjectRow replaced = object("Trigger", "on-alert", Map.of("operationSet", "net"), List.of(List.of(2, 3)), T0.plusDays(9));
            replaced = new ObjectRow(replaced.kind(), replaced.name(), replaced.document(), replaced.paths(), true, T0.plusDays(9),
                    T0.plusHours(1));
            repository.putObject(h, replaced);
            ObjectRow stored = repository.object(h, "Trigger", "on-alert").orElseThrow();
            assertSameObject(stored, replaced);
            assertThat(stored.lastScheduleAt().toInstant()).as("put leaves the schedule alone").isEqualTo(T0.minusDays(1).toInstant());
            assertThat(repository.objects(h, "Trigger")).hasSize(1);

            repository.setLastSchedule(h, "on-alert", T0.plusMinutes(1));
            repository.setLastSchedule(h, "disk-usage", T0.plusMinutes(1));
            assertThat(repository.object(h, "Trigger", "on-alert").orElseThrow().lastScheduleAt().toInstant())
                    .isEqualTo(T0.plusMinutes(1).toInstant());
            assertThat(repository.object(h, "Operation", "disk-usage").orElseThrow().lastScheduleAt()).as("only triggers").isNull();

            assertThat(repository.setsUsing(h, "ping")).containsExactly("disk", "net");
            assertThat(repository.setsUsing(h, "disk-usage")).containsExactly("disk");
            assertThat(repository.setsUsing(h, "nothing")).isEmpty();

            assertThat(repository.deleteObject(h, "OperationSet", "disk")).isTrue();
            assertThat(repository.deleteObject(h, "OperationSet", "disk")).isFalse();
            assertThat(repository.setsUsing(h, "disk-usage")).isEmpty();
        }));
    }

    static Progress running() {
        var state = new DiagnosisProgress.State(DiagnosisPhase.RUNNING, 1, 2, List.of(List.of(1, 2)), List.of(), Map.of("disk-usage.free", "3%"),
                List.of(new DiagnosisProgress.Condition("Accepted", "Accepted", "Diagnosis is accepted"),
                        new DiagnosisProgress.Condition("PathFailed", "OperationFailed", "node 2 failed")));
        return new Progress(state, List.of(T0, T0.plusSeconds(5)),
                List.of(new DiagnosisInfo.NodeRun(0, 2, "disk-usage", false, "exit 1", T0.plusSeconds(5),
                        Map.of("operation.du.output", "full"))));
    }

    static Progress phase(DiagnosisPhase phase) {
        return new Progress(new DiagnosisProgress.State(phase, 0, 0, List.of(), List.of(), Map.of(), List.of()), List.of(), List.of());
    }

    static Row row(long biz, Progress progress) {
        return new Row(0, "disk-" + biz, "disk", "f".repeat(64), 7, "web-7", biz, "web-7", "alert", "on-alert",
                Map.of("mount", "/var"), progress, "alertmanager", T0, T0);
    }

    @OnBothDatabases
    void diagnosesRoundTripWithTheirCheckpoints(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            Row written = row(2, running());
            long id = repository.insert(h, written);
            Row found = repository.find(h, id).orElseThrow();
            assertThat(found).usingRecursiveComparison().ignoringFields("id", "createdAt", "updatedAt").isEqualTo(written);
            assertThat(found.progress()).isEqualTo(written.progress());
            assertThat(found.id()).isEqualTo(id);
            assertThat(found.createdAt().toInstant()).isEqualTo(T0.toInstant());
            assertThat(found.updatedAt().toInstant()).isEqualTo(T0.toInstant());

            long bare = repository.insert(h, new Row(0, "manual", "disk", "0", 8, null, 3, null, "api", null, Map.of(),
                    phase(DiagnosisPhase.PENDING), "alice", T0, T0));
            Row manual = repository.find(h, bare).orElseThrow();
            assertThat(List.of(manual.hostId(), manual.bizId())).containsExactly(8L, 3L);
            assertThat(manual.hostName()).isNull();
            assertThat(manual.agentId()).isNull();
            assertThat(manual.trigger()).isNull();
            assertThat(manual.progress()).isEqualTo(phase(DiagnosisPhase.PENDING));
            assertThat(repository.find(h, bare + 100)).isEmpty();

            repository.saveProgress(h, id, phase(DiagnosisPhase.SUCCEEDED), T0.plusHours(1));
            Row saved = repository.find(h, id).orElseThrow();
            assertThat(saved.progress()).isEqualTo(phase(DiagnosisPhase.SUCCEEDED));
            assertThat(saved.updatedAt().toInstant()).isEqualTo(T0.plusHours(1).toInstant());
            assertThat(saved.createdAt().toInstant()).isEqualTo(T0.toInstant());
            assertThat(repository.count(h, DiagnosisPhase.SUCCEEDED)).isEqualTo(1);
            assertThat(repository.count(h, DiagnosisPhase.PENDING)).isEqualTo(1);
            assertThat(repository.count(h, DiagnosisPhase.RUNNING)).isZero();
        }));
    }

    @OnBothDatabases
    void aConditionWithoutItsTimeIsReadBackWithoutATime(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            Progress untimed = new Progress(io.drover.core.diagnosis.DiagnosisProgress.start(), List.of(), List.of());
            long id = repository.insert(h, row(2, untimed));
            Progress read = repository.find(h, id).orElseThrow().progress();
            assertThat(read.state()).isEqualTo(untimed.state());
            assertThat(read.conditionTimes()).containsExactly((java.time.OffsetDateTime) null);
        }));
    }

    @OnBothDatabases
    void newestFiltersByBusinessAndPhaseAndUnfinishedIsOldestFirst(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            long a = repository.insert(h, row(2, phase(DiagnosisPhase.RUNNING)));
            long b = repository.insert(h, row(3, phase(DiagnosisPhase.FAILED)));
            long c = repository.insert(h, row(2, phase(DiagnosisPhase.PENDING)));
            long d = repository.insert(h, row(4, phase(DiagnosisPhase.RUNNING)));

            assertThat(ids(h, null, null, 10)).containsExactly(d, c, b, a);
            assertThat(ids(h, List.of(2L), null, 10)).containsExactly(c, a);
            assertThat(ids(h, List.of(2L, 3L), null, 10)).containsExactly(c, b, a);
            assertThat(ids(h, List.of(), null, 10)).as("no business, no diagnosis").isEmpty();
            assertThat(ids(h, null, DiagnosisPhase.RUNNING, 10)).containsExactly(d, a);
            assertThat(ids(h, List.of(2L, 4L), DiagnosisPhase.RUNNING, 1)).containsExactly(d);
            assertThat(ids(h, List.of(3L), DiagnosisPhase.RUNNING, 10)).isEmpty();
            assertThat(ids(h, null, null, 2)).containsExactly(d, c);
        }));
    }

    List<Long> ids(Handle h, List<Long> businesses, DiagnosisPhase phase, int limit) {
        return repository.newest(h, businesses, phase, limit).stream().map(Row::id).toList();
    }

    @OnBothDatabases
    void aFingerprintIsClaimedOncePerIntervalAndPruned(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            java.time.Duration interval = java.time.Duration.ofMinutes(10);
            record Claim(String fingerprint, OffsetDateTime now, boolean claimed) {
            }
            List<Claim> claims = List.of(
                    new Claim("fp", T0, true),
                    new Claim("fp", T0.plusMinutes(5), false),
                    new Claim("other", T0.plusMinutes(5), true),
                    new Claim("fp", T0.plusMinutes(10), true),
                    new Claim("fp", T0.plusMinutes(19), false),
                    new Claim("other", T0.plusMinutes(14), false));
            for (Claim claim : claims) {
                assertThat(repository.claimFingerprint(h, claim.fingerprint(), claim.now().minus(interval), claim.now()))
                        .as(claim.toString()).isEqualTo(claim.claimed());
            }
            assertThat(repository.pruneFingerprints(h, T0.plusMinutes(10))).as("fp fired at exactly +10 is kept").isEqualTo(1);
            assertThat(repository.pruneFingerprints(h, T0.plusMinutes(10))).isZero();
            assertThat(repository.claimFingerprint(h, "other", T0.plusMinutes(6), T0.plusMinutes(16))).as("pruned: new again").isTrue();
            assertThat(repository.claimFingerprint(h, "fp", T0.plusMinutes(9), T0.plusMinutes(19))).isFalse();
            assertThat(repository.pruneFingerprints(h, T0.plusDays(1))).isEqualTo(2);
        }));
    }
}
