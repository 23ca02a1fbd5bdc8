package io.drover.transport.envelope;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the master publishes for a job (Salt's publish load, keys {@code fun, arg, tgt, tgt_type, jid, ret, user}):
 * the function, its Salt-encoded arguments, the target the agents check, and the job id. The publisher thread adds
 * the {@code serial}; {@link #toWire} and {@link #fromWire} are the only places that spell the keys.
 *
 * @param tgt a target expression (a String) or, for {@code tgt_type} list, the ids (a List of Strings)
 * @param ret the returner (Salt's; Drover's is always empty)
 */
public record PublishLoad(String fun, List<Object> arg, Object tgt, String tgtType, String jid, String ret, String user) {
    private static final String WHAT = "a publish load";

    public PublishLoad {
        WireFields.name(fun, "fun", WHAT);
        arg = WireFields.items(java.util.Objects.requireNonNull(arg, "arg"), "arg", WHAT);
        tgt = target(tgt);
        WireFields.name(tgtType, "tgt_type", WHAT);
        WireFields.name(jid, "jid", WHAT);
        ret = ret == null ? "" : ret;
        user = user == null ? "" : user;
        if (ret.length() > WireFields.MAX_NAME || user.length() > WireFields.MAX_NAME) {
            throw new MalformedEnvelopeException(WHAT + "'s ret and user must be at most " + WireFields.MAX_NAME + " characters");
        }
    }

    /** A job for the agents {@code ids} (a list target), as sent again to one agent or to the agents a list names. */
    public static PublishLoad forList(String fun, List<Object> arg, List<String> ids, String jid, String user) {
        return new PublishLoad(fun, arg, List.copyOf(ids), "list", jid, "", user);
    }

    private static Object target(Object tgt) {
        switch (tgt) {
            case String s when s.length() <= WireFields.MAX_TARGET -> {
                return s;
            }
            case List<?> ids when ids.size() <= WireFields.MAX_ITEMS -> {
                for (Object id : ids) {
                    if (!(id instanceof String s) || s.length() > WireFields.MAX_NAME) {
                        throw new MalformedEnvelopeException(WHAT + "'s tgt list holds something other than an id"
                                + WireFields.found(id));
                    }
                }
                return List.copyOf(ids);
            }
            case null, default -> throw new MalformedEnvelopeException(WHAT + "'s tgt must be an expression of at most "
                    + WireFields.MAX_TARGET + " characters or a list of at most " + WireFields.MAX_ITEMS + " ids"
                    + WireFields.found(tgt));
        }
    }

    /** The load in Salt's spelling and key order (without the serial). */
    public Map<String, Object> toWire() {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("fun", fun);
        wire.put("arg", arg);
        wire.put("tgt", tgt);
        wire.put("tgt_type", tgtType);
        wire.put("jid", jid);
        wire.put("ret", ret);
        wire.put("user", user);
        return wire;
    }

    /**
     * A load as received (from a peer server, or from the master by an agent): every field of it checked. Keys a Salt
     * master adds that Drover does not use ({@code serial}, {@code kwargs}, {@code metadata}…) are left out; an absent
     * {@code tgt_type} is Salt's glob, an absent {@code ret} or {@code user} empty.
     *
     * @throws MalformedEnvelopeException when a field is missing, of another type, or over its limit
     */
    public static PublishLoad fromWire(Map<?, ?> wire) {
        if (wire == null) {
            throw new MalformedEnvelopeException("no publish load");
        }
        return new PublishLoad(WireFields.name(wire, "fun", WHAT), WireFields.list(wire, "arg", WHAT, false), wire.get("tgt"),
                WireFields.optionalString(wire, "tgt_type", WHAT, "glob"), WireFields.name(wire, "jid", WHAT),
                WireFields.optionalString(wire, "ret", WHAT, ""), WireFields.optionalString(wire, "user", WHAT, ""));
    }
}
