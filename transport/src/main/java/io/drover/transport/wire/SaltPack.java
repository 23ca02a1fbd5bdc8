package io.drover.transport.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Salt's msgpack dialect ({@code use_bin_type=False}, the "old spec"): strings and byte strings are both
 * written as raw (fixstr / str16 / str32, never str8 or bin). On reading, a raw that is valid UTF-8 becomes a
 * {@link String} and anything else stays {@code byte[]}, as Salt's {@code decode_embedded_strs} does.
 *
 * <p>Values: {@code null}, {@link Boolean}, {@link Long} (every integer), {@link Double}, {@link String},
 * {@code byte[]}, {@link List}, {@link Map} with insertion order kept.
 */
public final class SaltPack {
    /** Largest frame Drover accepts; a bigger one is dropped before decoding. */
    public static final int MAX_FRAME = 64 * 1024 * 1024;
    private static final int MAX_DEPTH = 64;
    /** Most frames are a few hundred bytes: start with 1 KiB instead of msgpack-java's 8 KiB (it grows as needed). */
    private static final MessagePack.PackerConfig PACKER = new MessagePack.PackerConfig().withStr8FormatSupport(false)
            .withBufferSize(1024);

    /** msgpack-python 1.0's defaults ({@code use_bin_type=True}): str8 for text, bin for byte strings. */
    private static final MessagePack.PackerConfig BIN_TYPE_PACKER = new MessagePack.PackerConfig().withBufferSize(1024);

    private SaltPack() {
    }

    public static byte[] pack(Object value) {
        try (MessageBufferPacker packer = PACKER.newBufferPacker()) {
            write(packer, value, 0);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The bytes a salt-minion signs with {@code minion_sign_messages}: Salt's {@code salt.serializers.msgpack.serialize}
     * packs with msgpack-python's defaults, where text is str (with str8) and byte strings are bin, unlike the wire.
     */
    public static byte[] packBinType(Object value) {
        try (MessageBufferPacker packer = BIN_TYPE_PACKER.newBufferPacker()) {
            writeBinType(packer, value, 0);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeBinType(MessageBufferPacker p, Object value, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("value nested deeper than " + MAX_DEPTH);
        }
        switch (value) {
            case String s -> {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                p.packRawStringHeader(bytes.length);
                p.writePayload(bytes);
            }
            case byte[] bytes -> {
                p.packBinaryHeader(bytes.length);
                p.writePayload(bytes);
            }
            case List<?> list -> {
                p.packArrayHeader(list.size());
                for (Object item : list) {
                    writeBinType(p, item, depth + 1);
                }
            }
            case Map<?, ?> map -> {
                p.packMapHeader(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    writeBinType(p, e.getKey(), depth + 1);
                    writeBinType(p, e.getValue(), depth + 1);
                }
            }
            case null, default -> write(p, value, depth);
        }
    }

    private static void write(MessageBufferPacker p, Object value, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("value nested deeper than " + MAX_DEPTH);
        }
        switch (value) {
            case null -> p.packNil();
            case Boolean b -> p.packBoolean(b);
            case Integer i -> p.packLong(i);
            case Long l -> p.packLong(l);
            case Short s -> p.packLong(s);
            case Double d -> p.packDouble(d);
            case Float f -> p.packDouble(f);
            case String s -> {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                p.packRawStringHeader(bytes.length);
                p.writePayload(bytes);
            }
            case byte[] bytes -> {
                p.packRawStringHeader(bytes.length);
                p.writePayload(bytes);
            }
            case List<?> list -> {
                p.packArrayHeader(list.size());
                for (Object item : list) {
                    write(p, item, depth + 1);
                }
            }
            case Map<?, ?> map -> {
                p.packMapHeader(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    write(p, e.getKey(), depth + 1);
                    write(p, e.getValue(), depth + 1);
                }
            }
            default -> throw new IllegalArgumentException("cannot pack " + value.getClass().getName());
        }
    }

    /** Decodes one value; throws {@link MalformedFrameException} on anything that is not one whole msgpack value. */
    public static Object unpack(byte[] frame) {
        if (frame == null || frame.length == 0) {
            throw new MalformedFrameException("empty frame");
        }
        if (frame.length > MAX_FRAME) {
            throw new MalformedFrameException("frame of " + frame.length + " bytes is over the " + MAX_FRAME + " limit");
        }
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(frame)) {
            Object value = read(u, 0, frame.length);
            if (u.hasNext()) {
                throw new MalformedFrameException("trailing bytes after the message");
            }
            return value;
        } catch (IOException | RuntimeException e) {
            if (e instanceof MalformedFrameException m) {
                throw m;
            }
            throw new MalformedFrameException("not a msgpack message: " + e.getMessage());
        }
    }

    private static Object read(MessageUnpacker u, int depth, int budget) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new MalformedFrameException("message nested deeper than " + MAX_DEPTH);
        }
        ValueType type = u.getNextFormat().getValueType();
        switch (type) {
            case NIL -> {
                u.unpackNil();
                return null;
            }
            case BOOLEAN -> {
                return u.unpackBoolean();
            }
            case INTEGER -> {
                return u.unpackLong();
            }
            case FLOAT -> {
                return u.unpackDouble();
            }
            case STRING, BINARY -> {
                int length = type == ValueType.STRING ? u.unpackRawStringHeader() : u.unpackBinaryHeader();
                if (length > budget) {
                    throw new MalformedFrameException("a string claims " + length + " bytes, more than the frame holds");
                }
                return utf8OrBytes(u.readPayload(length));
            }
            case ARRAY -> {
                int size = u.unpackArrayHeader();
                if (size > budget) {
                    throw new MalformedFrameException("an array claims " + size + " items, more than the frame holds");
                }
                List<Object> list = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    list.add(read(u, depth + 1, budget));
                }
                return list;
            }
            case MAP -> {
                int size = u.unpackMapHeader();
                if (size > budget) {
                    throw new MalformedFrameException("a map claims " + size + " entries, more than the frame holds");
                }
                Map<Object, Object> map = new LinkedHashMap<>(Math.max(4, size * 2));
                Class<?> keyClass = null;
                for (int i = 0; i < size; i++) {
                    Object key = read(u, depth + 1, budget);
                    // Keys that share a hash code are kept in a tree only when they can be ordered: lists, maps, or keys
                    // of two classes (a string and a number) cannot, and a map of them would decode in quadratic time.
                    if (key instanceof List<?> || key instanceof Map<?, ?>) {
                        throw new MalformedFrameException("a map key is a " + (key instanceof List<?> ? "list" : "map")
                                + "; only strings, numbers, booleans and nil are keys");
                    }
                    Class<?> stored = key instanceof byte[] ? String.class : key == null ? null : key.getClass();
                    if (stored != null && keyClass != null && stored != keyClass) {
                        throw new MalformedFrameException("a map's keys mix " + keyClass.getSimpleName() + " and "
                                + stored.getSimpleName());
                    }
                    keyClass = stored != null ? stored : keyClass;
                    map.put(key instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1) : key,
                            read(u, depth + 1, budget));
                }
                return map;
            }
            case EXTENSION -> {
                var header = u.unpackExtensionTypeHeader();
                if (header.getLength() > budget) {
                    throw new MalformedFrameException("an extension claims more bytes than the frame holds");
                }
                // Salt's ext 78 (datetime) and 79 (constant) carry strings; keep the payload as text or bytes.
                return utf8OrBytes(u.readPayload(header.getLength()));
            }
            default -> throw new MalformedFrameException("unsupported msgpack type " + type);
        }
    }

    /**
     * Text when the raw value is well-formed UTF-8, else the bytes. Told by the decoder's result, not by an exception:
     * every request's ciphertext is such a raw value and fails here, and an exception per request cost the master
     * more than the decoding.
     */
    private static Object utf8OrBytes(byte[] raw) {
        if (ascii(raw)) {
            // most raws are keys, ids and names: ASCII is UTF-8, and needs no decoder or buffers to become text
            return new String(raw, StandardCharsets.ISO_8859_1);
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        CharBuffer text = CharBuffer.allocate(raw.length); // UTF-8 never decodes to more chars than it has bytes
        if (decoder.decode(ByteBuffer.wrap(raw), text, true).isError() || decoder.flush(text).isError()) {
            return raw;
        }
        return text.flip().toString();
    }

    private static boolean ascii(byte[] raw) {
        for (byte b : raw) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /** A raw field as bytes, whichever way it was decoded (binary fields such as ciphertext may happen to be UTF-8). */
    public static byte[] bytes(Object value) {
        return switch (value) {
            case byte[] b -> b;
            case String s -> s.getBytes(StandardCharsets.UTF_8);
            case null -> throw new MalformedFrameException("missing binary field");
            default -> throw new MalformedFrameException("expected a byte string, got " + value.getClass().getSimpleName());
        };
    }
}
