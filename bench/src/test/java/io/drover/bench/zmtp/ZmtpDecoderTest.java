package io.drover.bench.zmtp;

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
        new ZmtpDecoder().feed(ByteBuffer.wrap(stream()), sink);
        assertThat(seen).isEqualTo(EXPECTED);
    }

    @Test
    void decodesTheSameStreamArrivingOneByteAtATime() throws Exception {
        ZmtpDecoder decoder = new ZmtpDecoder();
        for (byte b : stream()) {
            decoder.feed(ByteBuffer.wrap(new byte[] {b}), sink);
        }
        assertThat(seen).isEqualTo(EXPECTED);
    }

    @Test
    void decodesPiecesOfAwkwardSizes() throws Exception {
        ZmtpDecoder decoder = new ZmtpDecoder();
        byte[] all = stream();
        for (int at = 0, step = 1; at < all.length; at += step, step = step * 3 % 1000 + 1) {
            decoder.feed(ByteBuffer.wrap(all, at, Math.min(step, all.length - at)), sink);
        }
        assertThat(seen).isEqualTo(EXPECTED);
    }

    @Test
    void refusesAPeerThatIsNotZmtp3() {
        byte[] http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3).getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> new ZmtpDecoder().feed(ByteBuffer.wrap(http), sink))
                .isInstanceOf(ZmtpDecoder.ProtocolException.class).hasMessageContaining("ZMTP 3");
        byte[] zmtp2 = Zmtp.greeting();
        zmtp2[10] = 1;
        assertThatThrownBy(() -> new ZmtpDecoder().feed(ByteBuffer.wrap(zmtp2), sink))
                .isInstanceOf(ZmtpDecoder.ProtocolException.class);
        byte[] curve = Zmtp.greeting();
        System.arraycopy("CURVE".getBytes(StandardCharsets.US_ASCII), 0, curve, 12, 5);
        assertThatThrownBy(() -> new ZmtpDecoder().feed(ByteBuffer.wrap(curve), sink))
                .isInstanceOf(ZmtpDecoder.ProtocolException.class).hasMessageContaining("NULL");
    }

    @Test
    void refusesAnOversizeFrameBeforeReadingIt() {
        ByteBuffer huge = ByteBuffer.allocate(9).put((byte) Zmtp.LONG).putLong(ZmtpDecoder.MAX_FRAME + 1).flip();
        byte[] stream = bytesOf(ByteBuffer.wrap(Zmtp.greeting()), huge);
        assertThatThrownBy(() -> new ZmtpDecoder().feed(ByteBuffer.wrap(stream), sink))
                .isInstanceOf(ZmtpDecoder.ProtocolException.class).hasMessageContaining("over the limit");
        ByteBuffer badFlags = ByteBuffer.allocate(2).put((byte) 0x40).put((byte) 0).flip();
        assertThatThrownBy(() -> new ZmtpDecoder().feed(ByteBuffer.wrap(bytesOf(ByteBuffer.wrap(Zmtp.greeting()), badFlags)), sink))
                .isInstanceOf(ZmtpDecoder.ProtocolException.class).hasMessageContaining("flags");
        assertThat(seen).isEmpty();
    }

    @Test
    void answersAPingWithItsContext() {
        byte[] ping = new byte[] {4, 'P', 'I', 'N', 'G', 0, 10, 'c', 'x'};
        byte[] pong = bytesOf(Zmtp.pong(ping));
        assertThat(pong).containsExactly(Zmtp.COMMAND, 7, 4, 'P', 'O', 'N', 'G', 'c', 'x');
    }
}
