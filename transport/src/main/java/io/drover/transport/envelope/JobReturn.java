package io.drover.transport.envelope;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An agent's answer to a job (Salt's {@code _return} load, keys {@code jid, fun, fun_args, return, retcode, success},
 * and Drover's {@code killed} when a kill stopped the job); {@link #toWire} and {@link #fromWire} are the only places
 * that spell the keys.
 *
 * @param value  what the function returned ({@code return}), any msgpack value
 * @param killed whether {@code saltutil.kill_job} stopped the job (written only when true)
 */
public record JobReturn(String jid, String fun, List<Object> funArgs, Object value, int retcode, boolean success,
                        boolean killed) {
    private static final String WHAT = "a job return";

    public JobReturn {
        WireFields.name(jid, "jid", WHAT);
        WireFields.name(fun, "fun", WHAT);
        funArgs = WireFields.items(funArgs == null ? List.of() : funArgs, "fun_args", WHAT);
    }

    /** The return of a function that ran to its end: a success when its retcode is 0. */
    public static JobReturn of(String jid, String fun, List<?> funArgs, Object value, int retcode) {
        return new JobReturn(jid, fun, funArgs == null ? List.of() : new java.util.ArrayList<>(funArgs), value, retcode,
                retcode == 0, false);
    }

    /** The same return marked as stopped by a kill. */
    public JobReturn asKilled() {
        return new JobReturn(jid, fun, funArgs, value, retcode, success, true);
    }

    /** The return in Salt's spelling and key order. */
    public Map<String, Object> toWire() {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("jid", jid);
        wire.put("fun", fun);
        wire.put("fun_args", funArgs);
        wire.put("return", value);
        wire.put("retcode", retcode);
        wire.put("success", success);
        if (killed) {
            wire.put("killed", true);
        }
        return wire;
    }

    /**
     * A return as an agent sent it, every field checked: {@code jid} and {@code fun} are required; an absent
     * {@code fun_args} is empty, {@code retcode} 0, {@code success} true (Salt's minions send both), {@code killed}
     * false. Keys Salt adds that Drover does not use ({@code id}, {@code cmd}, {@code out}, {@code metadata}…) are
     * left out.
     *
     * @throws MalformedEnvelopeException when a field is missing, of another type, or over its limit
     */
    public static JobReturn fromWire(Map<?, ?> wire) {
        if (wire == null) {
            throw new MalformedEnvelopeException("no job return");
        }
        return new JobReturn(WireFields.name(wire, "jid", WHAT), WireFields.name(wire, "fun", WHAT),
                WireFields.list(wire, "fun_args", WHAT, false), wire.get("return"), retcode(wire.get("retcode")),
                WireFields.flag(wire, "success", WHAT, true), WireFields.flag(wire, "killed", WHAT, false));
    }

    private static int retcode(Object value) {
        return switch (value) {
            case null -> 0;
            case Integer i -> i;
            case Long l when l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE -> l.intValue();
            case Short s -> s;
            case Byte b -> b;
            default -> throw new MalformedEnvelopeException(WHAT + "'s retcode must be a whole number within 32 bits"
                    + WireFields.found(value));
        };
    }
}
