package io.drover.transport.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SaltPackTest {

    @Test
    void stringsAndBytesAreRawNeverStr8OrBin() {
        assertThat(HexFormat.of().formatHex(SaltPack.pack("x".repeat(40)))).startsWith("da0028");
        assertThat(HexFormat.of().formatHex(SaltPack.pack(new byte[] {(byte) 0xff, 0}))).isEqualTo("a2ff00");
    }

    @Test
    void rawValuesComeBackAsTextWhenUtf8AndBytesOtherwise() {
        Object back = SaltPack.unpack(SaltPack.pack(Map.of("text", "héllo", "blob", new byte[] {(byte) 0xff, (byte) 0xfe})));
        assertThat(back).isInstanceOfSatisfying(Map.class, m -> {
            assertThat(m.get("text")).isEqualTo("héllo");
            assertThat(m.get("blob")).isEqualTo(new byte[] {(byte) 0xff, (byte) 0xfe});
        });
        assertThat(SaltPack.unpack(SaltPack.pack(List.of(1, 2L, true)))).isEqualTo(List.of(1L, 2L, true));
    }

    @Test
    void onlyWellFormedUtf8IsText() {
        for (String text : new String[] {"", "ascii", "日本語", "😀 U+1F600 takes 4 bytes", "\uFFFD as sent", "nul \0 inside"}) {
            assertThat(SaltPack.unpack(SaltPack.pack(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)))).isEqualTo(text);
        }
        // a truncated sequence, an overlong '/', a UTF-16 surrogate in UTF-8 (CESU), a code point past U+10FFFF
        for (String hex : new String[] {"61e6", "c0af", "eda080", "f4908080", "80", "616263ff"}) {
            byte[] raw = HexFormat.of().parseHex(hex);
            assertThat(SaltPack.unpack(SaltPack.pack(raw))).as(hex).isEqualTo(raw);
        }
    }

    /** Every byte string reads as a strict UTF-8 decoder reads it: text when it decodes, the bytes when it does not. */
    @Test
    void rawsAgreeWithAStrictDecoder() {
        java.util.Random random = new java.util.Random(34);
        byte[] alphabet = HexFormat.of().parseHex("00017f41e697a5c0afeda080f09f9880f4908080fe80c2a9");
        for (int i = 0; i < 20_000; i++) {
            byte[] raw = new byte[random.nextInt(12)];
            for (int j = 0; j < raw.length; j++) {
                raw[j] = i % 3 == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            Object expected;
            try {
                expected = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                        .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(raw)).toString();
            } catch (java.nio.charset.CharacterCodingException e) {
                expected = raw;
            }
            assertThat(SaltPack.unpack(SaltPack.pack(raw))).as(HexFormat.of().formatHex(raw)).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "c1", "dbffffffff41", "dc0003", "81a161", "ddffffffff", "9191919191", "a3616263ff"})
    void garbageIsAMalformedFrameNeverACrash(String hex) {
        byte[] frame = HexFormat.of().parseHex(hex);
        assertThatThrownBy(() -> SaltPack.unpack(frame)).isInstanceOf(MalformedFrameException.class);
    }

    @Test
    void nestingTooDeepIsRefused() {
        byte[] deep = new byte[200];
        java.util.Arrays.fill(deep, (byte) 0x91);
        assertThatThrownBy(() -> SaltPack.unpack(deep)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("deeper");
    }

    /**
     * Keys that are lists or maps are refused: such keys can all share one hash code and cannot be ordered, so a map of
     * them costs the decoder time quadratic in its size (40,000 colliding list keys, 400 KB, took 12.8 s) before any
     * signature is checked.
     */
    @Test
    void mapKeysThatAreListsOrMapsAreRefused() throws java.io.IOException {
        for (Object key : new Object[] {List.of(1, 2), Map.of("a", 1), List.of()}) {
            byte[] frame = packedMapWithKeys(List.of(key));
            assertThatThrownBy(() -> SaltPack.unpack(frame)).as(String.valueOf(key))
                    .isInstanceOf(MalformedFrameException.class).hasMessageContaining("map key");
        }
        java.util.List<Object> colliding = new java.util.ArrayList<>();
        for (int i = 0; i < 40_000; i++) {
            colliding.add(List.of(i, -961 - 31 * i)); // every one has List.hashCode() 0
        }
        assertThat(colliding.stream().map(Object::hashCode).distinct()).hasSize(1);
        byte[] flood = packedMapWithKeys(colliding);
        assertThatThrownBy(() -> SaltPack.unpack(flood)).isInstanceOf(MalformedFrameException.class);
    }

    @Test
    void scalarMapKeysAreKeptWhenAMapHasOneKindOfKey() {
        assertThat(SaltPack.unpack(SaltPack.pack(Map.of(1L, "one", 2L, "two")))).isEqualTo(Map.of(1L, "one", 2L, "two"));
        assertThat(SaltPack.unpack(SaltPack.pack(Map.of("a", 1L, "b", Map.of(3L, true))))).isEqualTo(Map.of("a", 1L, "b", Map.of(3L, true)));
    }

    /** A string and a number with one hash code cannot be ordered in a tree bin either (16,000 of each took 1.6 s). */
    @Test
    void mapKeysOfTwoKindsAreRefused() throws java.io.IOException {
        byte[] frame = packedMapWithKeys(List.of("Aa", 2112L)); // "Aa".hashCode() == Long.hashCode(2112) == 2112
        assertThat("Aa".hashCode()).isEqualTo(Long.hashCode(2112L));
        assertThatThrownBy(() -> SaltPack.unpack(frame)).isInstanceOf(MalformedFrameException.class).hasMessageContaining("mix");
    }

    private static byte[] packedMapWithKeys(List<Object> keys) throws java.io.IOException {
        var packer = org.msgpack.core.MessagePack.newDefaultBufferPacker();
        packer.packMapHeader(keys.size());
        for (Object key : keys) {
            packer.writePayload(SaltPack.pack(key));
            packer.packNil();
        }
        return packer.toByteArray();
    }
}
