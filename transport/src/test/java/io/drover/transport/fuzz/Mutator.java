package io.drover.transport.fuzz;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of hostile inputs: random bytes, and valid seeds mutated the way fuzzers do (bit flips, bytes
 * inserted, deleted and duplicated, and "interesting" values such as msgpack headers that claim huge sizes). Seeded,
 * so that any failure is reproduced by its seed and index.
 */
public final class Mutator {
    /** Inputs per target: 100,000 in the test suite; {@code -Ddrover.fuzz.iterations=N} for longer runs. */
    public static final int ITERATIONS = Integer.getInteger("drover.fuzz.iterations", 100_000);
    public static final long SEED = Long.getLong("drover.fuzz.seed", 20261124L);

    private static final byte[][] INTERESTING = {
            {(byte) 0xff}, {0}, {(byte) 0x7f}, {(byte) 0x80}, {(byte) 0xc1},
            {(byte) 0xdc, (byte) 0xff, (byte) 0xff}, {(byte) 0xdd, (byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},
            {(byte) 0xde, (byte) 0xff, (byte) 0xff}, {(byte) 0xdf, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
            {(byte) 0xdb, (byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}, {(byte) 0xc6, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
            {(byte) 0x91, (byte) 0x91, (byte) 0x91, (byte) 0x91}, {(byte) 0xc7, (byte) 0xff, 78},
            {2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
            {2, 0x40, 0, 0, 0, 0, 0, 0, 0}, {4, (byte) 0xff}, {1, (byte) 0xff},
    };

    private final Random random;
    private final List<byte[]> seeds;

    public Mutator(long seed, List<byte[]> seeds) {
        this.random = new Random(seed);
        this.seeds = seeds;
    }

    public Random random() {
        return random;
    }

    /** One input: a third random bytes, the rest a seed with one to eight mutations. */
    public byte[] next() {
        if (seeds.isEmpty() || random.nextInt(3) == 0) {
            byte[] bytes = new byte[random.nextInt(random.nextBoolean() ? 64 : 4096)];
            random.nextBytes(bytes);
            return bytes;
        }
        byte[] input = seeds.get(random.nextInt(seeds.size())).clone();
        int mutations = 1 + random.nextInt(8);
        for (int i = 0; i < mutations; i++) {
            input = mutate(input);
        }
        return input;
    }

    private byte[] mutate(byte[] in) {
        int at = in.length == 0 ? 0 : random.nextInt(in.length);
        switch (random.nextInt(6)) {
            case 0 -> {
                if (in.length > 0) {
                    in[at] ^= (byte) (1 << random.nextInt(8));
                }
                return in;
            }
            case 1 -> {
                byte[] extra = new byte[1 + random.nextInt(16)];
                random.nextBytes(extra);
                return splice(in, at, 0, extra);
            }
            case 2 -> {
                return splice(in, at, Math.min(in.length - at, 1 + random.nextInt(16)), new byte[0]);
            }
            case 3 -> {
                int length = Math.min(in.length - at, 1 + random.nextInt(64));
                return splice(in, at, 0, Arrays.copyOfRange(in, at, at + length));
            }
            case 4 -> {
                byte[] value = INTERESTING[random.nextInt(INTERESTING.length)];
                return splice(in, at, Math.min(in.length - at, value.length), value);
            }
            default -> {
                return in.length == 0 ? in : Arrays.copyOf(in, random.nextInt(in.length));
            }
        }
    }

    private static byte[] splice(byte[] in, int at, int remove, byte[] insert) {
        byte[] out = new byte[in.length - remove + insert.length];
        System.arraycopy(in, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(in, at + remove, out, at + insert.length, in.length - at - remove);
        return out;
    }
}
