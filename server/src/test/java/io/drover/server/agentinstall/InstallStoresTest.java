package io.drover.server.agentinstall;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.agentinstall.AgentInstallStep;
import io.drover.model.agentinstall.InstallStatus;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;

/** Host keys and install rows on SQLite and on the real PostgreSQL. */
class InstallStoresTest {
    @OnBothDatabases
    void aHostKeyIsRecordedOnceAndAChangeIsNamedWithBothFingerprints(String kind) {
        TestDatabases.on(kind, db -> {
            HostKeyStore keys = new HostKeyStore(db.jdbi(), Clock.systemUTC());
            assertThat(keys.check("10.0.0.1", 22, "ssh-ed25519", "SHA256:aaa")).isInstanceOf(HostKeyStore.FirstSeen.class);
            assertThat(keys.check("10.0.0.1", 22, "ssh-ed25519", "SHA256:aaa")).isInstanceOf(HostKeyStore.Known.class);
            assertThat(keys.check("10.0.0.1", 2222, "ssh-ed25519", "SHA256:bbb")).isInstanceOf(HostKeyStore.FirstSeen.class);
            assertThat(keys.check("10.0.0.1", 22, "ecdsa-sha2-nistp256", "SHA256:ccc"))
                    .isEqualTo(new HostKeyStore.Changed("ssh-ed25519", "SHA256:aaa", "ecdsa-sha2-nistp256", "SHA256:ccc"));
        });
    }

    @OnBothDatabases
    void aTaskItsHostsAndTheirStepsWithoutCredentials(String kind) {
        TestDatabases.on(kind, db -> {
            InstallStore store = new InstallStore(db.jdbi(), Clock.systemUTC());
            long id = store.create(2, "alice", "root", "ops@bastion:22", List.of("m:4506"), 50, List.of(
                    new InstallStore.NewHost("10.0.0.1", 22, "a", "10.0.0.1", null, null),
                    new InstallStore.NewHost("10.0.0.2", 2222, "b", null, 7L, "/tmp/p")));
            var task = store.get(id);
            assertThat(task.hosts()).hasSize(2);
            long first = task.hosts().get(0).id();
            OffsetDateTime now = OffsetDateTime.now();
            store.saveHost(first, InstallStatus.FAILED, "cannot connect", null, null,
                    List.of(new AgentInstallStep("connect", InstallStatus.FAILED, now, now, List.of("connecting"))), now, now);
            store.saveHost(task.hosts().get(1).id(), InstallStatus.SUCCEEDED, null, "x86_64", "1.0", List.of(), now, now);
            store.finish(id);
            task = store.get(id);
            assertThat(task.status().wire()).isEqualTo("failed");
            assertThat(task.succeeded()).isEqualTo(1);
            assertThat(task.hosts().get(0).steps().get(0).log()).containsExactly("connecting");
            assertThat(task.hosts().get(1).bkHostId()).isEqualTo(7L);
            assertThat(task.hosts().get(1).prefix()).isEqualTo("/tmp/p");
            assertThat(store.list(10).get(0).failed()).isEqualTo(1);
            assertThat(store.reopenFailed(id)).containsExactly(first);
            assertThat(store.get(id).status().wire()).isEqualTo("running");
            assertThat(store.failInterrupted()).isEqualTo(1);
            assertThat(store.get(id).hosts().get(0).error()).contains("retry the task with its credentials");
        });
    }
}
