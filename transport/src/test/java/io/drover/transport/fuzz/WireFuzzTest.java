package io.drover.transport.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.transport.wire.MalformedFrameException;
import io.drover.transport.wire.SaltPack;
import io.drover.transport.zmtp.ReceiveBudget;
import io.drover.transport.zmtp.Zmtp;
import io.drover.transport.zmtp.ZmtpDecoder;
import io.drover.transport.zmtp.ZmtpException;
import io.drover.transport.zmtp.ZmtpLimits;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of the two layers every peer's bytes go through first: the ZMTP frame decoder and the msgpack
 * decoder. Each must answer any input with its own exception (or a value), never another exception, an error or a
 * leak of its receive budget.
 */
class WireFuzzTest {
    static final ZmtpLimits LIMITS = new ZmtpLimits(1 << 20, 4, 1 << 20, 8, 64);


    static List<byte[]> zmtpSeeds() {
        byte[] payload = SaltPack.pack(Map.of("enc", "aes", "load", new byte[300], "sig", new byte[256]));
        ByteBuffer ping = ByteBuffer.wrap(new byte[] {Zmtp.COMMAND, 9, 4, 'P', 'I', 'N', 'G', 0, 10, 'c', 'x'});
        return List.of(
                Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER"), Zmtp.message(new byte[0], payload)),
                Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("SUB"), Zmtp.subscription("broadcast".getBytes())),
                Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("PUB"), Zmtp.message("broadcast".getBytes(), new byte[700]), ping));
    }

    @Test
    void theZmtpDecoderAnswersAnyStreamWithAZmtpExceptionOrFrames() {
        Mutator mutator = new Mutator(Mutator.SEED, zmtpSeeds());
        Random random = mutator.random();
        ReceiveBudget budget = new ReceiveBudget(64 << 20);
        ZmtpDecoder.Sink sink = new ZmtpDecoder.Sink() {
            @Override
            public void message(List<byte[]> frames) {
                assertThat(frames.size()).isBetween(1, LIMITS.maxFrames());
            }

            @Override
            public void command(String name, byte[] body) {
                assertThat(body.length).isLessThanOrEqualTo(ZmtpLimits.MAX_COMMAND_BYTES);
            }
        };
        int refused = 0;
        for (int i = 0; i < Mutator.ITERATIONS; i++) {
            byte[] input = mutator.next();
            ZmtpDecoder decoder = new ZmtpDecoder(LIMITS, budget);
            try {
                for (int at = 0; at < input.length; ) {
                    int n = Math.min(input.length - at, 1 + random.nextInt(512));
                    decoder.feed(ByteBuffer.wrap(input, at, n), sink);
                    at += n;
                }
            } catch (ZmtpException e) {
                refused++;
                assertThat(e.kind()).isNotBlank();
            } catch (RuntimeException | Error e) {
                throw new AssertionError("input " + i + " of seed " + Mutator.SEED + " broke the decoder", e);
            } finally {
                decoder.release();
            }
            assertThat(budget.used()).as("input %d", i).isZero();
        }
        assertThat(refused).as("most inputs are refused, and some are not").isBetween(1, Mutator.ITERATIONS - 1);
    }

    static List<byte[]> msgpackSeeds() {
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("fun", "cmd.run");
        load.put("arg", List.of("uptime", Map.of("__kwarg__", true, "timeout", 30L)));
        load.put("tgt", List.of("web-1", "web-2"));
        load.put("serial", 42L);
        load.put("ratio", 0.5);
        load.put("nothing", null);
        load.put("bytes", new byte[] {(byte) 0xff, 0, 1});
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(SaltPack.pack(load));
        seeds.add(SaltPack.pack(Map.of("enc", "clear", "load", load)));
        seeds.add(SaltPack.pack(List.of(List.of(List.of(Map.of("a", List.of(1L, 2L, true)))))));
        return seeds;
    }

    @Test
    void theMsgpackDecoderAnswersAnyFrameWithMalformedFrameOrAValue() {
        Mutator mutator = new Mutator(Mutator.SEED + 1, msgpackSeeds());
        int decoded = 0;
        for (int i = 0; i < Mutator.ITERATIONS; i++) {
            byte[] input = mutator.next();
            try {
                Object value = SaltPack.unpack(input);
                SaltPack.pack(value); // whatever decodes can be sent on again
                decoded++;
            } catch (MalformedFrameException e) {
                assertThat(e.getMessage()).isNotBlank();
            } catch (RuntimeException | Error e) {
                throw new AssertionError("input " + i + " of seed " + (Mutator.SEED + 1) + " broke the msgpack decoder", e);
            }
        }
        assertThat(decoded).isBetween(1, Mutator.ITERATIONS - 1);
    }
}
