package io.drover.core.diagnosis;

import java.util.Map;
import java.util.TreeMap;

/**
 * One Prometheus alert as Alertmanager sends it: {@code status} firing or resolved, labels, annotations, the times
 * as the payload writes them (RFC 3339), the generator URL, and the fingerprint Alertmanager gave it (null: computed).
 */
public record Alert(String status, Map<String, String> labels, Map<String, String> annotations, String startsAt,
                    String endsAt, String generatorURL, String fingerprint) {
    public Alert {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    public boolean resolved() {
        return "resolved".equalsIgnoreCase(status);
    }

    public String name() {
        return labels.getOrDefault("alertname", "");
    }

    /** Alertmanager's fingerprint when given, otherwise Prometheus's: FNV-1a 64 over the sorted label names and values. */
    public String fingerprintOrComputed() {
        if (fingerprint != null && !fingerprint.isBlank()) {
            return fingerprint;
        }
        long hash = 0xcbf29ce484222325L;
        for (Map.Entry<String, String> label : new TreeMap<>(labels).entrySet()) {
            hash = add(hash, label.getKey());
            hash = add(hash, label.getValue());
        }
        return String.format("%016x", hash);
    }

    private static long add(long hash, String text) {
        for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        hash ^= 0xff;
        return hash * 0x100000001b3L;
    }
}
