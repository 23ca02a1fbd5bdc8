package io.drover.core.agents;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one-line command that installs an agent on a Linux host: it picks the package for the host's architecture,
 * downloads it with curl (over HTTPS, accepting only the server's key: {@code --pinnedpubkey}), sending the enrollment
 * token as a header read from a file through a pipe, checks the package's sha256, unpacks it into a temporary
 * directory and runs its {@code bin/drover-agent install}. The token is never in the command, a URL or any process's
 * arguments: {@code printf} is a shell builtin and curl reads the header from its standard input ({@code -H @-}).
 * Every value is checked to be plain (no quote, space, {@code $} or other character the shell would read), so the
 * command means exactly what it says.
 */
public record AgentInstallCommand(String serverUrl, String keyPin, List<Offer> packages, String masters, String masterFinger,
                                  String tokenFile) {
    /** Where the command expects the token on the host, unless told otherwise. */
    public static final String DEFAULT_TOKEN_FILE = "/root/drover-enroll.token";

    private static final Pattern URL = Pattern.compile("https?://[A-Za-z0-9._~\\-\\[\\]:]+(/[A-Za-z0-9._~\\-/]*)?");
    private static final Pattern MASTERS = Pattern.compile("[A-Za-z0-9._\\-\\[\\]:]+(,[A-Za-z0-9._\\-\\[\\]:]+)*");
    private static final Pattern FINGER = Pattern.compile("[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){31}");
    private static final Pattern PIN = Pattern.compile("[A-Za-z0-9+/]{43}=");
    private static final Pattern PATH = Pattern.compile("/[A-Za-z0-9._\\-/]{1,255}");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** A package the server offers for one architecture, with the sha256 the command checks. */
    public record Offer(AgentPackageName name, String sha256) {
        public Offer {
            if (sha256 == null || !SHA256.matcher(sha256).matches()) {
                throw new IllegalArgumentException("the sha256 of " + name.fileName() + " is not 64 hex digits");
            }
        }
    }

    /**
     * @param serverUrl the API's base URL as hosts reach it ({@code https://drover.example:8443}, no trailing '/')
     * @param keyPin    {@link io.drover.core.tls.PublicKeyPin} of the server's certificate; null for an {@code http://} URL
     * @param masters   the agent transport as hosts reach it, {@code HOST[:PORT][,HOST[:PORT]...]}
     */
    public AgentInstallCommand {
        List<String> problems = new ArrayList<>();
        if (serverUrl == null || !URL.matcher(serverUrl).matches() || serverUrl.endsWith("/")) {
            problems.add("the server URL " + AgentPackageName.shown(serverUrl) + " must be http(s)://HOST[:PORT][/PATH] with "
                    + "letters, digits and . _ ~ - only, without a query or a trailing '/'");
        } else if (serverUrl.startsWith("https://") != (keyPin != null)) {
            problems.add(keyPin == null ? "an https:// server URL needs the pin of its certificate's key"
                    : "a pin is for an https:// server URL");
        }
        if (keyPin != null && !PIN.matcher(keyPin).matches()) {
            problems.add("the key pin must be the base64 of a SHA-256 (44 characters)");
        }
        if (masters == null || !MASTERS.matcher(masters).matches()) {
            problems.add("the master " + AgentPackageName.shown(masters) + " must be HOST[:PORT][,HOST[:PORT]...]");
        }
        if (masterFinger == null || !FINGER.matcher(masterFinger).matches()) {
            problems.add("the master key fingerprint must be 32 hex pairs separated by ':'");
        }
        if (tokenFile == null || !PATH.matcher(tokenFile).matches() || tokenFile.contains("/../") || tokenFile.endsWith("/..")) {
            problems.add("the token file " + AgentPackageName.shown(tokenFile)
                    + " must be an absolute path of letters, digits and . _ - /");
        }
        if (packages == null || packages.isEmpty()) {
            problems.add("no agent package to install");
        } else {
            Set<String> arches = new HashSet<>();
            packages.stream().filter(p -> !arches.add(p.name().arch())).findFirst()
                    .ifPresent(p -> problems.add("two packages for " + p.name().arch()));
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        packages = List.copyOf(packages);
    }

    /** The command, one line for a root shell on the host. */
    public String line() {
        StringBuilder choose = new StringBuilder("case \"$(uname -m)\" in ");
        for (Offer p : packages) {
            choose.append(p.name().arch()).append(") v=").append(p.name().version()).append(" a=").append(p.name().arch())
                    .append(" s=").append(p.sha256()).append(";; ");
        }
        choose.append("*) echo \"drover: the server has no agent package for $(uname -m)\" >&2; exit 1;; esac");
        String tls = keyPin == null ? "" : "--proto =https -k --pinnedpubkey sha256//" + keyPin + " ";
        String script = String.join("; ",
                "set -eu",
                "t=" + tokenFile,
                "[ -r \"$t\" ] || { echo \"drover: put the enrollment token in $t first (mode 0600)\" >&2; exit 1; }",
                choose.toString(),
                "d=$(mktemp -d)",
                "trap \"rm -rf \\\"\\$d\\\"\" EXIT",
                "printf \"Authorization: Enroll %s\\n\" \"$(tr -d \" \\t\\r\\n\" < \"$t\")\" | curl -fsS " + tls
                        + "-H @- -o \"$d/p.tar.gz\" \"" + serverUrl + "/api/v1/agent-packages/$v/$a\"",
                "[ \"$(sha256sum \"$d/p.tar.gz\" | cut -d\" \" -f1)\" = \"$s\" ] || { echo \"drover: the downloaded package"
                        + " does not have the sha256 the server listed\" >&2; exit 1; }",
                "tar -xzf \"$d/p.tar.gz\" -C \"$d\"",
                "\"$d/drover-agent-$v-linux-$a/bin/drover-agent\" install --master " + masters + " --master-finger "
                        + masterFinger + " --enroll-token-file \"$t\"");
        return "sh -c '" + script + "'";
    }
}
