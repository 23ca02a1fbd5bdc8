package io.drover.transport.envelope;

import java.util.List;
import java.util.Map;

/** Reads one field of a Salt load with its type and size checked; what the envelope codecs share. */
final class WireFields {
    /** The longest job id, function name, target type, returner or user accepted (Salt's job ids have 20 digits). */
    static final int MAX_NAME = 256;
    /** The longest target expression accepted. */
    static final int MAX_TARGET = 64 * 1024;
    /** The most arguments, or ids of a list target, accepted (the frame size limits bound them first). */
    static final int MAX_ITEMS = 1_000_000;

    private WireFields() {
    }

    static String name(Map<?, ?> wire, String key, String what) {
        if (!(wire.get(key) instanceof String value)) {
            throw new MalformedEnvelopeException(what + " has no " + key + " string" + found(wire.get(key)));
        }
        return name(value, key, what);
    }

    static String name(String value, String key, String what) {
        if (value == null || value.isEmpty() || value.length() > MAX_NAME) {
            throw new MalformedEnvelopeException(what + "'s " + key + " must be 1 to " + MAX_NAME + " characters");
        }
        return value;
    }

    /** A string that may be absent (then {@code absent}) or empty. */
    static String optionalString(Map<?, ?> wire, String key, String what, String absent) {
        Object value = wire.get(key);
        if (value == null) {
            return absent;
        }
        if (!(value instanceof String s) || s.length() > MAX_NAME) {
            throw new MalformedEnvelopeException(what + "'s " + key + " must be a string of at most " + MAX_NAME
                    + " characters" + found(value));
        }
        return s;
    }

    static List<Object> list(Map<?, ?> wire, String key, String what, boolean required) {
        Object value = wire.get(key);
        if (value == null && !required) {
            return List.of();
        }
        if (!(value instanceof List<?> items)) {
            throw new MalformedEnvelopeException(what + " has no " + key + " list" + found(value));
        }
        return items(items, key, what);
    }

    static List<Object> items(List<?> items, String key, String what) {
        if (items.size() > MAX_ITEMS) {
            throw new MalformedEnvelopeException(what + "'s " + key + " has " + items.size() + " items, over " + MAX_ITEMS);
        }
        // a copy that keeps nulls (an argument may be None)
        return java.util.Collections.unmodifiableList(new java.util.ArrayList<>(items));
    }

    static boolean flag(Map<?, ?> wire, String key, String what, boolean absent) {
        Object value = wire.get(key);
        if (value == null) {
            return absent;
        }
        if (!(value instanceof Boolean b)) {
            throw new MalformedEnvelopeException(what + "'s " + key + " must be true or false" + found(value));
        }
        return b;
    }

    /** The kind of a value found in place of the expected one, never its content (which may be large or a secret). */
    static String found(Object value) {
        return value == null ? " (none)" : " (a " + value.getClass().getSimpleName() + ")";
    }
}
