package io.drover.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.cluster.ClusterSeal.Refusal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ClusterSealTest {
    static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final Duration WINDOW = Duration.ofSeconds(60);
    static final String SUBJECT = "drover.publish";

    final MutableClock clock = new MutableClock();
    final ClusterSeal sender = seal(KEY, clock);
    final ClusterSeal receiver = seal(KEY, clock);

    static ClusterSeal seal(byte[] key, Clock clock) {
        return new ClusterSeal(key, UUID.randomUUID(), clock, WINDOW, 1000);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    Refusal refusal(byte[] message) {
        return refusal(receiver, SUBJECT, message);
    }

    static Refusal refusal(ClusterSeal receiver, String subject, byte[] message) {
        try {
            receiver.open(subject, message);
        } catch (ClusterSeal.Refused e) {
            return e.reason();
        }
        throw new AssertionError("opened");
    }

    @Test
    void aSealedMessageOpensWithItsSenderSequenceAndPayload() throws Exception {
        ClusterSeal.Opened first = receiver.open(SUBJECT, sender.seal(SUBJECT, bytes("{\"a\":1}")));
        assertThat(first.origin()).isEqualTo(sender.origin());
        assertThat(first.sequence()).isEqualTo(1);
        assertThat(first.payload()).isEqualTo(bytes("{\"a\":1}"));
        ClusterSeal.Opened empty = receiver.open(SUBJECT, sender.seal(SUBJECT, new byte[0]));
        assertThat(empty.sequence()).isEqualTo(2);
        assertThat(empty.payload()).isEmpty();
        assertThat(receiver.open(SUBJECT, sender.seal(SUBJECT, new byte[1000])).payload()).hasSize(1000);
    }

    @Test
    void whatIsNotSealedIsRefusedAsUnsealed() {
        for (String plain : List.of("", "{\"origin\":\"x\",\"load\":{\"fun\":\"cmd.run\"}}", "DRC", "DRC0" + "x".repeat(80),
                "\u0000\u0000\u0000\u0000")) {
            assertThat(refusal(bytes(plain))).as(plain).isEqualTo(Refusal.UNSEALED);
        }
    }

    @Test
    void everyCutOfASealedMessageIsRefused() {
        byte[] sealed = sender.seal(SUBJECT, bytes("payload"));
        for (int length = 0; length < sealed.length; length++) {
            Refusal expected = length < 4 ? Refusal.UNSEALED : length < ClusterSeal.HEADER ? Refusal.TRUNCATED : Refusal.FORGED;
            assertThat(refusal(Arrays.copyOf(sealed, length))).as("cut to %d bytes", length).isEqualTo(expected);
        }
        byte[] longer = Arrays.copyOf(sealed, sealed.length + 1);
        assertThat(refusal(longer)).as("a byte added").isEqualTo(Refusal.FORGED);
    }

    @Test
    void everyBitFlippedAnywhereIsRefused() {
        byte[] sealed = sender.seal(SUBJECT, bytes("{\"fun\":\"test.ping\"}"));
        for (int i = 0; i < sealed.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] altered = sealed.clone();
                altered[i] ^= (byte) (1 << bit);
                assertThat(refusal(altered)).as("byte %d bit %d", i, bit)
                        .isEqualTo(i < 4 ? Refusal.UNSEALED : Refusal.FORGED);
            }
        }
    }

    @Test
    void aMessageSealedUnderAnotherKeyOrForAnotherSubjectIsForged() {
        byte[] otherKey = KEY.clone();
        otherKey[31] ^= 1;
        assertThat(refusal(seal(otherKey, clock).seal(SUBJECT, bytes("x")))).isEqualTo(Refusal.FORGED);
        byte[] forEvents = sender.seal("drover.events", bytes("x"));
        assertThat(refusal(receiver, SUBJECT, forEvents)).as("moved to another subject").isEqualTo(Refusal.FORGED);
        assertThat(refusal(receiver, "drover.publis", sender.seal(SUBJECT, bytes("hx")))).isEqualTo(Refusal.FORGED);
        assertThat(refusal(receiver, "drover.publish", sender.seal("drover.publis", bytes("hx")))).isEqualTo(Refusal.FORGED);
    }

    @Test
    void aMessageOutsideTheWindowOfThisServersClockIsRefused() throws Exception {
        byte[] sealed = sender.seal(SUBJECT, bytes("x"));
        clock.advance(WINDOW);
        assertThat(receiver.open(SUBJECT, sealed).sequence()).as("at the edge of the window").isEqualTo(1);
        byte[] late = sender.seal(SUBJECT, bytes("y"));
        clock.advance(WINDOW.plusMillis(1));
        assertThat(refusal(late)).isEqualTo(Refusal.STALE);

        MutableClock ahead = new MutableClock();
        ahead.now = clock.now.plus(WINDOW).plusMillis(1);
        assertThat(refusal(seal(KEY, ahead).seal(SUBJECT, bytes("z")))).isEqualTo(Refusal.FUTURE);
        ahead.now = clock.now.plus(WINDOW);
        assertThat(receiver.open(SUBJECT, seal(KEY, ahead).seal(SUBJECT, bytes("z"))).payload()).isEqualTo(bytes("z"));
    }

    @Test
    void aMessageOpensOnceAndThisServersOwnIsRefused() throws Exception {
        byte[] sealed = sender.seal(SUBJECT, bytes("x"));
        receiver.open(SUBJECT, sealed);
        assertThat(refusal(sealed)).isEqualTo(Refusal.REPLAYED);
        assertThat(refusal(sealed)).isEqualTo(Refusal.REPLAYED);
        assertThat(refusal(receiver.seal(SUBJECT, bytes("mine")))).isEqualTo(Refusal.REPLAYED);
        ClusterSeal other = seal(KEY, clock);
        assertThat(other.open(SUBJECT, sealed).payload()).as("another server opens it once too").isEqualTo(bytes("x"));
    }

    @Test
    void messagesArrivingOutOfOrderOpenOnceEachWithinTheSpan() throws Exception {
        List<byte[]> sealed = new ArrayList<>();
        for (int i = 0; i < ClusterSeal.REPLAY_SPAN + 100; i++) {
            sealed.add(sender.seal(SUBJECT, bytes("m" + i)));
        }
        receiver.open(SUBJECT, sealed.get(2));
        receiver.open(SUBJECT, sealed.get(0));
        receiver.open(SUBJECT, sealed.get(1));
        for (int i = 0; i < 3; i++) {
            assertThat(refusal(sealed.get(i))).isEqualTo(Refusal.REPLAYED);
        }
        // gaps are fine (a server subscribes to returns only while it wants them)
        receiver.open(SUBJECT, sealed.get(9));
        receiver.open(SUBJECT, sealed.get(5));
        assertThat(refusal(sealed.get(5))).isEqualTo(Refusal.REPLAYED);
        assertThat(refusal(sealed.get(9))).isEqualTo(Refusal.REPLAYED);
        receiver.open(SUBJECT, sealed.get(6));

        int last = sealed.size() - 1;
        receiver.open(SUBJECT, sealed.get(last));
        assertThat(receiver.open(SUBJECT, sealed.get(last - ClusterSeal.REPLAY_SPAN)).payload())
                .as("the oldest number still remembered").isEqualTo(bytes("m" + (last - ClusterSeal.REPLAY_SPAN)));
        assertThat(refusal(sealed.get(last - ClusterSeal.REPLAY_SPAN))).isEqualTo(Refusal.REPLAYED);
        assertThat(refusal(sealed.get(last - ClusterSeal.REPLAY_SPAN - 1))).as("too far behind to tell").isEqualTo(Refusal.REPLAYED);
        assertThat(refusal(sealed.get(6))).isEqualTo(Refusal.REPLAYED);
        assertThat(refusal(sealed.get(9))).isEqualTo(Refusal.REPLAYED);
        assertThat(receiver.open(SUBJECT, sealed.get(last - 1)).sequence()).isEqualTo(last);
    }

    @Test
    void aQuietSenderIsForgottenOnlyWhenWhatItSentIsTooOldToOpen() throws Exception {
        byte[] sealed = sender.seal(SUBJECT, bytes("x"));
        receiver.open(SUBJECT, sealed);
        clock.advance(WINDOW.multipliedBy(2).plusMillis(1));
        receiver.open(SUBJECT, seal(KEY, clock).seal(SUBJECT, bytes("sweeps")));
        assertThat(refusal(sealed)).isEqualTo(Refusal.STALE);
    }

    @Test
    void anOversizedMessageIsRefusedBeforeItsMacIsComputed() {
        assertThat(refusal(sender.seal(SUBJECT, new byte[1001]))).isEqualTo(Refusal.OVERSIZED);
        byte[] junk = new byte[ClusterSeal.HEADER + 5000];
        System.arraycopy(ClusterSeal.MAGIC, 0, junk, 0, 4);
        assertThat(refusal(junk)).isEqualTo(Refusal.OVERSIZED);
    }

    @Test
    void aShortKeyIsRefused() {
        assertThatThrownBy(() -> new ClusterSeal(new byte[31], UUID.randomUUID(), clock, WINDOW, 10))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRefusalSaysWhyInOneLine() {
        try {
            receiver.open(SUBJECT, bytes("plain"));
        } catch (ClusterSeal.Refused e) {
            assertThat(e.getMessage()).isEqualTo("unsealed: no seal");
            return;
        }
        throw new AssertionError("opened");
    }

    static final class MutableClock extends Clock {
        Instant now = Instant.parse("2026-11-27T01:02:03Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
