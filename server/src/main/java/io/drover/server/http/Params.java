package io.drover.server.http;

import io.drover.server.errors.DomainException;
import io.javalin.http.Context;

/** Parses path and query parameters, answering 422 with the parameter's name when one is malformed. */
public final class Params {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 10_000;

    private Params() {
    }

    public static long pathId(Context ctx, String name) {
        return positiveId(name, ctx.pathParam(name));
    }

    public static Long queryId(Context ctx, String name) {
        String text = ctx.queryParam(name);
        return text == null || text.isEmpty() ? null : positiveId(name, text);
    }

    private static long positiveId(String name, String text) {
        try {
            long id = Long.parseLong(text);
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw DomainException.invalid(name, "'" + text + "' is not a positive id");
    }

    public static long offset(Context ctx) {
        return bounded(ctx, "offset", 0, 0, Long.MAX_VALUE);
    }

    public static int limit(Context ctx) {
        return (int) bounded(ctx, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
    }

    public static boolean flag(Context ctx, String name) {
        String text = ctx.queryParam(name);
        if (text == null || text.isEmpty()) {
            return false;
        }
        return switch (text) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw DomainException.invalid(name, "'" + text + "' is not true or false");
        };
    }

    /** A free-text query parameter: null when absent or blank; refused when longer than {@code maxLength} or holding control characters. */
    public static String text(Context ctx, String name, int maxLength) {
        String text = ctx.queryParam(name);
        if (text == null || text.isBlank()) {
            return null;
        }
        if (text.length() > maxLength) {
            throw DomainException.invalid(name, "is " + text.length() + " characters long; at most " + maxLength);
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw DomainException.invalid(name, "holds a control character");
        }
        return text.strip();
    }

    public static long bounded(Context ctx, String name, long fallback, long min, long max) {
        String text = ctx.queryParam(name);
        if (text == null || text.isEmpty()) {
            return fallback;
        }
        try {
            long value = Long.parseLong(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw DomainException.invalid(name, "'" + text + "' must be a number from " + min + " to " + max);
    }
}
