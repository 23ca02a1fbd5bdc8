package io.drover.agent.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.agent.SignInFile;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.KeyDecision;
import io.drover.transport.master.MasterHandler;
import io.drover.transport.master.SaltMaster;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SignInListener;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real agent's {@code sign-in.json}, read back as the installer reads it: a {@link DroverAgent} against a closed
 * port, and against a real {@link SaltMaster} on loopback that accepts, holds pending or rejects its key, or whose
 * key is not the fingerprint given.
 */
class AgentSignInStatusTest {
    private static final RSAPrivateCrtKey MASTER_KEY = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();

    @TempDir
    Path root;
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : started.reversed()) {
            c.close();
        }
    }

    @Test
    void anAgentWhoseServerDoesNotAnswerIsUnreachable() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Instant before = Instant.now();

        agent(config("web-01", closed));

        SignInWait.SignIn s = awaitState("UNREACHABLE");
        assertThat(s.master()).isEqualTo("127.0.0.1:" + closed);
        assertThat(s.version()).isEqualTo("9.9.9-test");
        assertThat(s.time()).isAfterOrEqualTo(before.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        assertThat(SignInWait.reason(Optional.of(s), Duration.ofSeconds(60), new Layout(root), "web-01"))
                .isEqualTo("the server '127.0.0.1:" + closed + "' does not answer the agent's sign-in: check --master, "
                        + "that the server runs and that a firewall lets the agent reach its port");
    }

    @Test
    void anAgentSignsInOnceItsKeyIsAccepted() {
        Decisions decisions = new Decisions(KeyDecision.PENDING);
        SaltMaster master = master(decisions);

        agent(config("web-02", master));

        assertThat(awaitState("PENDING_ACCEPTANCE").detail()).isEqualTo("the master holds this key pending");
        decisions.decision = KeyDecision.ACCEPTED;
        assertThat(awaitState("SIGNED_IN").master()).isEqualTo("127.0.0.1:" + master.requestPort());
    }

    @Test
    void aRejectedKeyIsKeyRejected() {
        SaltMaster master = master(new Decisions(KeyDecision.REJECTED));

        agent(config("web-03", master));

        assertThat(awaitState("KEY_REJECTED").detail()).isEqualTo("the master rejected this key");
    }

    @Test
    void aServerWithAnotherKeyThanTheFingerprintGivenIsAFingerprintMismatch() {
        SaltMaster master = master(new Decisions(KeyDecision.ACCEPTED));

        agent(config("web-04", master).withMasterFinger("00".repeat(32)));

        String actual = RsaKeys.fingerprint(RsaKeys.publicPem(RsaKeys.publicOf(MASTER_KEY)));
        assertThat(awaitState("FINGERPRINT_MISMATCH").detail()).isEqualTo("the master's key has the fingerprint " + actual);
    }

    @Test
    void theFileIsWrittenWhenTheOutcomeChangesAndReadsBackWhateverTheDetailHolds() throws IOException {
        Path state = Files.createDirectories(root.resolve("var/lib/drover-agent"));
        Clock[] clock = {Clock.fixed(Instant.parse("2025-01-01T00:00:00.123Z"), ZoneOffset.UTC)};
        SignInFile file = new SignInFile(state, "1.0.0", new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return clock[0].instant();
            }
        });
        MinionConfig.Master master = new MinionConfig.Master("drover", 4505, 4506);
        String hostile = "too many \"sign-ins\"\\\n\u2028\u202e\u0000 from 10.0.0.1";

        file.onSignIn(SignInListener.Result.REFUSED, master, hostile);
        clock[0] = Clock.fixed(Instant.parse("2025-01-01T00:01:00Z"), ZoneOffset.UTC);
        file.onSignIn(SignInListener.Result.REFUSED, master, hostile); // the same: not written again

        String text = Files.readString(state.resolve("sign-in.json"));
        assertThat(text.strip()).doesNotContain("\n").doesNotContain("\u2028");
        SignInWait.SignIn s = SignInWait.read(state.resolve("sign-in.json")).orElseThrow();
        assertThat(s).isEqualTo(new SignInWait.SignIn("REFUSED", "drover:4506", hostile,
                Instant.parse("2025-01-01T00:00:00.123Z"), "1.0.0"));
        assertThat(s.line()).doesNotContain("\n").contains("\\u000a").contains("\\u202e");

        file.onSignIn(SignInListener.Result.SIGNED_IN, master, "signed in");
        assertThat(SignInWait.read(state.resolve("sign-in.json")).orElseThrow().time()).isEqualTo(Instant.parse("2025-01-01T00:01:00Z"));
    }

    private SignInWait.SignIn awaitState(String state) {
        Path file = root.resolve("var/lib/drover-agent/sign-in.json");
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> SignInWait.read(file).orElse(null), s -> s != null && s.state().equals(state));
    }

    private void agent(MinionConfig config) {
        started.add(DroverAgent.start(config, root, "9.9.9-test", new Grains.Placement("10.0.0.9", 0), Duration.ofSeconds(30)));
    }

    private SaltMaster master(Decisions decisions) {
        SaltMaster master = new SaltMaster(MASTER_KEY, decisions, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);
        started.add(master);
        return master;
    }

    private static MinionConfig config(String id, SaltMaster master) {
        return MinionConfig.of(id, "127.0.0.1", master.publishPort(), master.requestPort())
                .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(100));
    }

    private static MinionConfig config(String id, int port) {
        return MinionConfig.of(id, "127.0.0.1", port, port)
                .withTimeouts(Duration.ofMillis(500), Duration.ofMillis(200), Duration.ofMillis(100));
    }

    /** A master's key decisions: one for every agent, changeable while it runs. */
    private static final class Decisions implements MasterHandler {
        volatile KeyDecision decision;
        volatile String accepted;

        Decisions(KeyDecision decision) {
            this.decision = decision;
        }

        @Override
        public KeyDecision decideKey(String id, String publicKeyPem, Map<?, ?> authLoad) {
            if (decision == KeyDecision.ACCEPTED) {
                accepted = publicKeyPem;
            }
            return decision;
        }

        @Override
        public String acceptedKey(String id) {
            return decision == KeyDecision.ACCEPTED ? accepted : null;
        }

        @Override
        public Object onReturn(String id, Map<?, ?> load) {
            return true;
        }

        @Override
        public Object onEvent(String id, Map<?, ?> load) {
            return true;
        }
    }
}
