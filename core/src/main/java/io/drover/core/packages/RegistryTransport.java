package io.drover.core.packages;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a registry's address is reached, and whether the server may read it. What a registry serves is installed on
 * hosts, so an address anyone on the network path can answer for (http://, git://) is read only when the operator
 * said so ({@code insecure}), or when it never leaves the server (a loopback host), as Docker treats registries on
 * 127.0.0.0/8.
 */
public final class RegistryTransport {
    /** What reaching an address protects. */
    public enum Kind {
        /** TLS, or a path on the server itself. */
        PROTECTED,
        /** In clear, but to this machine only. */
        LOOPBACK,
        /** In clear over the network. */
        CLEAR,
        /** SSH (ssh://, sftp://, Git's {@code [user@]host:path}), which no registry reader here speaks. */
        SSH,
        /** Anything else. */
        UNSUPPORTED
    }

    /** The authority runs to the first '/': what it holds beyond user, host and port is refused, not read around. */
    private static final Pattern SCHEME = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*)://([^/]*)(.*)", Pattern.DOTALL);
    /**
     * Characters that parsers read differently inside an authority (JGit takes {@code 127.0.0.1?@host} for user
     * {@code 127.0.0.1?} at {@code host}; java.net.URI ends the authority at '?').
     */
    private static final Pattern AMBIGUOUS_AUTHORITY = Pattern.compile("[?#\\\\\\s]|@.*@|%[^@]*$");
    /**
     * Git's scp-like form, {@code [user@]host:path}: a user, or a host with a dot, so that {@code scheme:text}
     * ({@code javascript:…}, {@code http:/host}) is not taken for it.
     */
    private static final Pattern SCP_LIKE = Pattern.compile("(?:[^@/:\\s]+@[A-Za-z0-9.-]+|[A-Za-z0-9-]+\\.[A-Za-z0-9.-]+):.*",
            Pattern.DOTALL);
    private static final Pattern IPV4_LOOPBACK = Pattern.compile("127\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    private RegistryTransport() {
    }

    public static Kind of(String url) {
        if (url == null || url.isBlank() || url.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return Kind.UNSUPPORTED;
        }
        String address = url.strip();
        Matcher m = SCHEME.matcher(address);
        if (!m.matches()) {
            // No scheme: a path on the server (local registries, a git repository on disk) or Git's scp-like SSH form.
            if (address.startsWith("/")) {
                return Kind.PROTECTED;
            }
            return SCP_LIKE.matcher(address).matches() ? Kind.SSH : Kind.UNSUPPORTED;
        }
        if (AMBIGUOUS_AUTHORITY.matcher(m.group(2)).find()) {
            return Kind.UNSUPPORTED;
        }
        return switch (m.group(1).toLowerCase(Locale.ROOT)) {
            case "https", "file" -> Kind.PROTECTED;
            case "http", "git" -> isLoopback(host(m.group(2))) ? Kind.LOOPBACK : Kind.CLEAR;
            case "ssh", "sftp" -> Kind.SSH;
            default -> Kind.UNSUPPORTED;
        };
    }

    /** Null when the server may read {@code url}; else why not, in words for the operator. */
    public static String refusal(String url, boolean insecure) {
        return switch (of(url)) {
            case PROTECTED, LOOPBACK -> null;
            case CLEAR -> insecure ? null : "travels in clear (" + scheme(url) + "://): anyone on the network path could change"
                    + " what the registry serves, and so what runs on your hosts; use https://, or add the"
                    + " registry as insecure (insecure: true, or drover registry add --insecure) to accept that";
            case SSH -> "is SSH, which registries are not read over here; use https:// or, for Git, a path on the server";
            case UNSUPPORTED -> "is not an address registries are read from: https://, a path on the server (Git), or,"
                    + " with insecure: true, http:// or git://";
        };
    }

    /**
     * As {@link #refusal} for a Git registry: JGit follows an http:// redirect to any other http:// host, which the
     * server cannot check hop by hop, so http:// needs {@code insecure} even on this machine.
     */
    public static String refusalForGit(String url, boolean insecure) {
        if (!insecure && of(url) == Kind.LOOPBACK && scheme(url).equals("http")) {
            return "is http:// for Git, whose redirects (to any http:// host) the server cannot check; use https://,"
                    + " git://, a path on the server, or add the registry as insecure (insecure: true, or drover registry"
                    + " add --insecure)";
        }
        return refusal(url, insecure);
    }

    /** The host of an authority ({@code user@host:port}, {@code [v6]:port}), lower case, without brackets. */
    static String host(String authority) {
        String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
        if (hostPort.startsWith("[")) {
            int end = hostPort.indexOf(']');
            return end < 0 ? "" : hostPort.substring(1, end).toLowerCase(Locale.ROOT);
        }
        int colon = hostPort.indexOf(':');
        return (colon < 0 ? hostPort : hostPort.substring(0, colon)).toLowerCase(Locale.ROOT);
    }

    static boolean isLoopback(String host) {
        if (host.equals("localhost") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1")) {
            return true;
        }
        Matcher m = IPV4_LOOPBACK.matcher(host);
        if (!m.matches()) {
            return false;
        }
        for (int i = 1; i <= 3; i++) {
            if (Integer.parseInt(m.group(i)) > 255) {
                return false;
            }
        }
        return true;
    }

    private static String scheme(String url) {
        Matcher m = SCHEME.matcher(url.strip());
        return m.matches() ? m.group(1).toLowerCase(Locale.ROOT) : "";
    }
}
