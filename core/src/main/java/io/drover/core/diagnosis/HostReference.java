package io.drover.core.diagnosis;

/**
 * What an alert's host label holds, as a host name or address: Prometheus's {@code instance} is usually
 * {@code host:port} ({@code [v6]:port} for IPv6), so the port and brackets are dropped.
 */
public final class HostReference {
    private HostReference() {
    }

    public static String hostOf(String value) {
        String text = value.strip();
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            return close > 0 ? text.substring(1, close) : text;
        }
        int colon = text.lastIndexOf(':');
        if (colon > 0 && text.indexOf(':') == colon && text.substring(colon + 1).matches("\\d{1,5}")) {
            return text.substring(0, colon);
        }
        return text;
    }
}
