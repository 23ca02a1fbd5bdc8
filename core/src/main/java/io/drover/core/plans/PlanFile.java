package io.drover.core.plans;

import java.util.Base64;

/**
 * A file of a plan. {@code name} is a relative path under the script's folder. Text and Base64 files carry their
 * content in {@code body}; a Downloadable one is fetched from {@code url} (http, https, or {@code salt://} for
 * Drover's own fileserver), checked against {@code sha256} when the plan gives one.
 */
public record PlanFile(String id, String name, Kind kind, String body, String url, String sha256) {
    public enum Kind { TEXT, BASE64, DOWNLOADABLE }

    /** Base64 as plans carry it: line breaks and blanks are ignored, anything else outside the alphabet is an error. */
    public static byte[] decodeBase64(String text) {
        return Base64.getDecoder().decode(text.replaceAll("[\\s]", ""));
    }
}
