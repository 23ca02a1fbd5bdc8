package io.drover.transport.zmtp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ZmtpDecoderTest {
    final List<String> seen = new ArrayList<>();
    final ZmtpDecoder.Sink sink = new ZmtpDecoder.Sink() {
        @Override
        public void message(List<byte[]> frames) {
            seen.add("message " + frames.stream().map(f -> f.length > 20 ? f.length + " bytes" : new String(f, StandardCharsets.US_ASCII)).toList());
        }

        @Override
        public void command(String name, byte[] body) {
            seen.add("command " + name);
        }
    };

    static final ZmtpLimits LIMITS = new ZmtpLimits(1 << 20, 4, 1 << 20, 8, 64);
    final ReceiveBudget budget = new ReceiveBudget(8 << 20);

    ZmtpDecoder decoder() {
        return new ZmtpDecoder(LIMITS, budget);
    }

    static byte[] bytesOf(ByteBuffer... buffers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ByteBuffer b : buffers) {
            byte[] a = new byte[b.remaining()];
            b.get(a);
            out.writeBytes(a);
        }
        return out.toByteArray();
    }

    /** What a PUB sends a SUB: greeting, READY, a two-frame publish with a long payload, a PING. */
    static byte[] stream() {
        byte[] payload = new byte[70_000];
        Arrays.fill(payload, (byte) 7);
        byte[] ping = new byte[] {4, 'P', 'I', 'N', 'G', 0, 10, 'c', 'x'};
        ByteBuffer pingCommand = ByteBuffer.allocate(2 + ping.length).put((byte) Zmtp.COMMAND).put((byte) ping.length).put(ping).flip();
        return bytesOf(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("PUB"),
                Zmtp.message("broadcast".getBytes(StandardCharsets.US_ASCII), payload), pingCommand,
                Zmtp.message(new byte[0], "ok".getBytes(StandardCharsets.US_ASCII)));
    }

    static final List<String> EXPECTED = List.of("command READY", "message [broadcast, 70000 bytes]", "command PING",
            "message [, ok]");

    @Test
    void decodesAWholeStream() throws Exception {
        decoder().feed(ByteBuffer.wrap(stream()), sink);
        assertThat(seen).isEqualTo(EXPECTED);
    }

    @Test
    void decodesTheSameStreamArrivingOneByteAtATime() throws Exception {
        ZmtpDecoder decoder = decoder();
        for (byte b : stream()) {
            decoder.feed(ByteBuffer.wrap(new byte[] {b}), sink);
        }
        assertThat(seen).isEqualTo(EXPECTED);
    }

    @Test
    void decodesPiecesOfAwkwardSizes() throws Exception {
        ZmtpDecoder decoder = decoder();
        byte[] all = stream();
        for (int at = 0, step = 1; at < all.length; at += step, step = step * 3 % 1000 + 1) {
            decoder.feed(ByteBuffer.wrap(all, at, Math.min(step, all.length - at)), sink);
        }
        assertThat(seen).isEqualTo(EXPECTED);
    }

    @Test
    void refusesAPeerThatIsNotZmtp3() {
        byte[] http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3).getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(http), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("ZMTP 3");
        byte[] zmtp2 = Zmtp.greeting();
        zmtp2[10] = 1;
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(zmtp2), sink))
                .isInstanceOf(ZmtpException.class);
        byte[] curve = Zmtp.greeting();
        System.arraycopy("CURVE".getBytes(StandardCharsets.US_ASCII), 0, curve, 12, 5);
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(curve), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("NULL");
    }

    static byte[] afterGreeting(ByteBuffer... frames) {
        ByteBuffer[] all = new ByteBuffer[frames.length + 1];
        all[0] = ByteBuffer.wrap(Zmtp.greeting());
        System.arraycopy(frames, 0, all, 1, frames.length);
        return bytesOf(all);
    }

    static ByteBuffer longHeader(int flags, long size) {
        return ByteBuffer.allocate(9).put((byte) (flags | Zmtp.LONG)).putLong(size).flip();
    }

    @Test
    void refusesAnOversizeFrameBeforeReadingIt() {
        for (long size : new long[] {LIMITS.maxMessageBytes() + 1L, 1L << 30, 1L << 62, Long.MAX_VALUE, -1L, Long.MIN_VALUE}) {
            byte[] stream = afterGreeting(longHeader(0, size));
            assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(stream), sink)).as("size %d", size)
                    .isInstanceOf(ZmtpException.class).hasMessageMatching(".*(over the limit|2\\^63).*")
                    .extracting(e -> ((ZmtpException) e).kind()).isEqualTo("oversize");
        }
        assertThat(budget.used()).isZero();
        ByteBuffer badFlags = ByteBuffer.allocate(2).put((byte) 0x40).put((byte) 0).flip();
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(bytesOf(ByteBuffer.wrap(Zmtp.greeting()), badFlags)), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("flags");
        assertThat(seen).isEmpty();
    }

    @Test
    void answersAPingWithItsContext() {
        byte[] ping = new byte[] {4, 'P', 'I', 'N', 'G', 0, 10, 'c', 'x'};
        byte[] pong = bytesOf(Zmtp.pong(ping));
        assertThat(pong).containsExactly(Zmtp.COMMAND, 7, 4, 'P', 'O', 'N', 'G', 'c', 'x');
    }

    @Test
    void boundsCommandsFramesAndTheWholeMessage() {
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(afterGreeting(longHeader(Zmtp.COMMAND, 5000))), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("command of 5000 bytes");
        byte[] half = new byte[LIMITS.maxMessageBytes() / 2 + 1];
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(afterGreeting(Zmtp.message(half, half))), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("over the limit of " + LIMITS.maxMessageBytes());
        byte[][] five = {new byte[1], new byte[1], new byte[1], new byte[1], new byte[1]};
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(afterGreeting(Zmtp.message(five))), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("more than 4 frames");
        ByteBuffer commandWithMore = ByteBuffer.allocate(2).put((byte) (Zmtp.COMMAND | Zmtp.MORE)).put((byte) 0).flip();
        assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(afterGreeting(commandWithMore)), sink))
                .isInstanceOf(ZmtpException.class).hasMessageContaining("MORE");
        assertThat(seen).isEmpty();
    }

    @Test
    void aLargeAnnouncedFrameCostsOnlyWhatArrivesAndIsGivenBackOnRelease() throws Exception {
        ZmtpDecoder decoder = decoder();
        decoder.feed(ByteBuffer.wrap(afterGreeting(longHeader(0, 900_000))), sink);
        assertThat(budget.used()).as("nothing read yet but the header").isLessThanOrEqualTo(64 * 1024);
        decoder.feed(ByteBuffer.wrap(new byte[200_000]), sink);
        assertThat(budget.used()).isBetween(200_000L, 400_000L);
        decoder.release();
        assertThat(budget.used()).isZero();
    }

    @Test
    void theEndpointBudgetBoundsManySlowSenders() throws Exception {
        ReceiveBudget small = new ReceiveBudget(350_000);
        ZmtpDecoder first = new ZmtpDecoder(LIMITS, small);
        ZmtpDecoder second = new ZmtpDecoder(LIMITS, small);
        first.feed(ByteBuffer.wrap(afterGreeting(longHeader(0, 900_000))), sink);
        first.feed(ByteBuffer.wrap(new byte[250_000]), sink);
        second.feed(ByteBuffer.wrap(afterGreeting(longHeader(0, 900_000))), sink);
        assertThatThrownBy(() -> second.feed(ByteBuffer.wrap(new byte[100_000]), sink))
                .isInstanceOf(ZmtpException.class).extracting(e -> ((ZmtpException) e).kind()).isEqualTo("budget");
        first.release();
        second.release();
        assertThat(small.used()).isZero();
    }

    /** Found by WireFuzzTest (seed 20261124, input 42): an empty command frame threw StringIndexOutOfBounds. */
    @Test
    void aCommandWithoutAWholeNameIsRefused() {
        for (byte[] body : new byte[][] {{}, {0}, {5, 'R', 'E'}, {(byte) 0xff, 'A'}}) {
            ByteBuffer command = ByteBuffer.allocate(2 + body.length).put((byte) Zmtp.COMMAND).put((byte) body.length).put(body).flip();
            assertThatThrownBy(() -> decoder().feed(ByteBuffer.wrap(afterGreeting(command)), sink))
                    .isInstanceOf(ZmtpException.class).hasMessageContaining("without a whole name");
        }
    }
}
