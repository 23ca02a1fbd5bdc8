package io.drover.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Resolved server settings. Precedence, highest first: command-line flags, {@code DROVER_*} environment
 * variables, the {@code drover.yaml} file, built-in defaults.
 */
public final class ServerConfig {
    public static final String CONFIG_FILE_ENV = "DROVER_CONFIG";
    public static final String DEFAULT_CONFIG_FILE = "drover.yaml";

    private final Map<Setting, String> values;
    private final Map<Setting, String> sources;

    private ServerConfig(Map<Setting, String> values, Map<Setting, String> sources) {
        this.values = values;
        this.sources = sources;
    }

    public static ServerConfig defaults() {
        return resolve(Map.of(), Map.of(), Map.of(), "");
    }

    /**
     * Resolves settings from flags, environment and a config file. The file is {@code configFile} if given,
     * else {@code $DROVER_CONFIG}, else {@code ./drover.yaml} when it exists.
     */
    public static ServerConfig load(Map<Setting, String> flags, Map<String, String> env, Path configFile) {
        Path file = configFile;
        if (file == null && env.get(CONFIG_FILE_ENV) != null) {
            file = Path.of(env.get(CONFIG_FILE_ENV));
        }
        boolean explicit = file != null;
        if (file == null) {
            file = Path.of(DEFAULT_CONFIG_FILE);
        }
        Map<Setting, String> fromFile = Map.of();
        if (Files.exists(file)) {
            fromFile = readFile(file);
        } else if (explicit) {
            throw new ConfigException("config file " + file + " does not exist");
        }
        return resolve(flags, env, fromFile, file.toString());
    }

    static ServerConfig resolve(Map<Setting, String> flags, Map<String, String> env, Map<Setting, String> file,
                                String fileName) {
        Map<Setting, String> values = new EnumMap<>(Setting.class);
        Map<Setting, String> sources = new EnumMap<>(Setting.class);
        for (Setting s : Setting.values()) {
            if (flags.get(s) != null) {
                values.put(s, flags.get(s));
                sources.put(s, "flag " + s.flag());
            } else if (env.get(s.envVar()) != null) {
                values.put(s, env.get(s.envVar()));
                sources.put(s, "environment variable " + s.envVar());
            } else if (file.get(s) != null) {
                values.put(s, file.get(s));
                sources.put(s, fileName + " key '" + s.key() + "'");
            } else {
                values.put(s, s.defaultValue());
                sources.put(s, "default");
            }
        }
        ServerConfig config = new ServerConfig(values, sources);
        config.validate();
        return config;
    }

    private static Map<Setting, String> readFile(Path file) {
        JsonNode root;
        try {
            root = Json.yaml().readTree(file.toFile());
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        Map<Setting, String> values = new HashMap<>();
        if (root == null || root.isMissingNode() || root.isNull()) {
            return values;
        }
        if (!root.isObject()) {
            throw new ConfigException("config file " + file + " must be a mapping of setting: value");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            Setting setting = Setting.byKey(entry.getKey());
            if (setting == null) {
                throw new ConfigException("config file " + file + ": unknown setting '" + entry.getKey()
                        + "' (see drover server --help)");
            }
            if (!entry.getValue().isValueNode()) {
                throw new ConfigException("config file " + file + ": setting '" + entry.getKey() + "' must be a plain value");
            }
            values.put(setting, entry.getValue().asText());
        }
        return values;
    }

    private void validate() {
        port(Setting.PORT);
        port(Setting.SALT_PUBLISH_PORT);
        port(Setting.SALT_REQUEST_PORT);
        positive(Setting.DB_POOL_SIZE);
        positive(Setting.SALT_MAX_MESSAGE_BYTES);
        positive(Setting.SALT_MAX_CONNECTIONS);
        positive(Setting.RETURN_MAX_BYTES);
        positive(Setting.EVENT_RETENTION_DAYS);
        positive(Setting.AUDIT_RETENTION_DAYS);
        positive(Setting.JOB_RETENTION_DAYS);
        positive(Setting.DIAGNOSIS_RETENTION_PER_HOST);
        positive(Setting.DIAGNOSIS_RETENTION_HOURS);
        positive(Setting.AUTH_FAILURES_PER_MINUTE);
        positive(Setting.HTTP_MAX_CONNECTIONS);
        positive(Setting.MAX_PENDING_KEYS);
        positive(Setting.AGENT_PACKAGE_MAX_BYTES);
        notNegative(Setting.SALT_MAX_CONNECTIONS_PER_ADDRESS);
        notNegative(Setting.SALT_SIGN_INS_PER_ADDRESS_PER_MINUTE);
        try {
            saltAddressLimits();
        } catch (IllegalArgumentException e) {
            throw invalid(Setting.SALT_ADDRESS_LIMITS_EXEMPT, e.getMessage());
        }
        try {
            io.drover.server.http.ClientAddress.trusting(trustedProxies());
        } catch (IllegalArgumentException e) {
            throw invalid(Setting.TRUSTED_PROXIES, e.getMessage());
        }
        try {
            agentInstallAllowedTargets();
        } catch (IllegalArgumentException e) {
            throw invalid(Setting.AGENT_INSTALL_ALLOWED_TARGETS, e.getMessage());
        }
        metricsToken();
        dbPassword();
        tlsCertificate();
        if (!get(Setting.AGENT_BIZ).isBlank()) {
            positive(Setting.AGENT_BIZ);
        }
        Map<String, String> groups = nodegroups();
        for (String name : groups.keySet()) {
            try {
                io.drover.core.match.TargetExpression.parse("nodegroup", name, groups);
            } catch (io.drover.core.match.TargetException e) {
                throw invalid(Setting.NODEGROUPS, e.getMessage());
            }
        }
        if (!java.util.List.of("true", "false").contains(get(Setting.ALLOW_PLAIN_ENROLLMENT_TOKENS))) {
            throw invalid(Setting.ALLOW_PLAIN_ENROLLMENT_TOKENS, "must be true or false");
        }
        if (!java.util.List.of("true", "false").contains(get(Setting.REQUIRE_MINION_SIGN_MESSAGES))) {
            throw invalid(Setting.REQUIRE_MINION_SIGN_MESSAGES, "must be true or false");
        }
        if (!java.util.List.of("filtered", "broadcast").contains(get(Setting.SALT_PUBLISH_MODE))) {
            throw invalid(Setting.SALT_PUBLISH_MODE, "must be filtered or broadcast");
        }
        String format = get(Setting.LOG_FORMAT);
        if (!format.equals("text") && !format.equals("json")) {
            throw invalid(Setting.LOG_FORMAT, "must be text or json");
        }
        String url = get(Setting.DB_URL);
        if (url.startsWith("jdbc:h2:")) {
            throw invalid(Setting.DB_URL, "H2 is no longer a store: leave db-url empty for the embedded SQLite database"
                    + " (drover db migrate-h2 DIR copies an H2 data directory into it) or give a jdbc:postgresql: URL");
        }
        if (!url.isEmpty() && !url.startsWith("jdbc:postgresql:") && !url.startsWith("jdbc:sqlite:")) {
            throw invalid(Setting.DB_URL, "must be a jdbc:postgresql: or jdbc:sqlite: URL");
        }
        if (!java.util.List.of("normal", "full").contains(get(Setting.SQLITE_SYNCHRONOUS))) {
            throw invalid(Setting.SQLITE_SYNCHRONOUS, "must be normal or full");
        }
        switchOn(Setting.CLUSTER_INSECURE);
        String cluster = get(Setting.CLUSTER);
        if (!cluster.isEmpty()) {
            if (!cluster.matches("(nats|tls)://[^\\s/]+(,(nats|tls)://[^\\s/]+)*")) {
                throw invalid(Setting.CLUSTER, "must be a NATS URL such as nats://127.0.0.1:4222 (several separated by commas)");
            }
            if (!url.startsWith("jdbc:postgresql:")) {
                throw invalid(Setting.CLUSTER, "needs a PostgreSQL database shared by the cluster's servers (--db-url jdbc:postgresql:…)");
            }
            natsCredentials();
        }
    }

    /**
     * The cluster's NATS credentials (their files must be readable; what is in them is read when the server connects).
     * Refused when the cluster is given none, unless cluster-insecure allows it.
     */
    public io.drover.server.cluster.NatsCredentials natsCredentials() {
        String user = get(Setting.CLUSTER_USER).strip();
        Path password = readableFile(Setting.CLUSTER_PASSWORD_FILE);
        if (user.isEmpty() != (password == null)) {
            throw invalid(user.isEmpty() ? Setting.CLUSTER_PASSWORD_FILE : Setting.CLUSTER_USER,
                    "needs cluster-user and cluster-password-file together");
        }
        Path cert = readableFile(Setting.CLUSTER_TLS_CERT);
        Path key = readableFile(Setting.CLUSTER_TLS_KEY);
        if ((cert == null) != (key == null)) {
            throw invalid(cert == null ? Setting.CLUSTER_TLS_KEY : Setting.CLUSTER_TLS_CERT,
                    "needs cluster-tls-cert and cluster-tls-key together");
        }
        boolean urlHasUser = get(Setting.CLUSTER).matches("(?s).*//[^@/,]*@.*");
        io.drover.server.cluster.NatsCredentials credentials = new io.drover.server.cluster.NatsCredentials(
                user.isEmpty() ? null : user, password, readableFile(Setting.CLUSTER_TOKEN_FILE),
                readableFile(Setting.CLUSTER_NKEY_FILE), readableFile(Setting.CLUSTER_TLS_CA), cert, key, urlHasUser,
                switchOn(Setting.CLUSTER_INSECURE));
        if (credentials.none() && !credentials.insecure()) {
            throw invalid(Setting.CLUSTER, "needs credentials that the cluster's NATS checks: cluster-user with "
                    + "cluster-password-file, cluster-token-file, cluster-nkey-file, or cluster-tls-cert with cluster-tls-key "
                    + "(docs/operations.md, \"The cluster's credentials\"); --cluster-insecure joins without any");
        }
        return credentials;
    }

    /** The file a setting names, checked readable; null when the setting is empty. */
    private Path readableFile(Setting s) {
        String value = get(s).strip();
        if (value.isEmpty()) {
            return null;
        }
        Path file = Path.of(value);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw invalid(s, "names " + file + ", which is not a readable file");
        }
        return file;
    }

    private boolean switchOn(Setting s) {
        String value = get(s).strip();
        if (!value.equals("true") && !value.equals("false")) {
            throw invalid(s, "must be true or false");
        }
        return value.equals("true");
    }

    private void port(Setting s) {
        int value = integer(s);
        if (value < 0 || value > 65535) {
            throw invalid(s, "must be between 0 and 65535");
        }
    }

    private void positive(Setting s) {
        if (integer(s) < 1) {
            throw invalid(s, "must be 1 or more");
        }
    }

    private void notNegative(Setting s) {
        if (integer(s) < 0) {
            throw invalid(s, "must be 0 (no limit) or more");
        }
    }

    private int integer(Setting s) {
        try {
            return Integer.parseInt(get(s).strip());
        } catch (NumberFormatException e) {
            throw invalid(s, "'" + get(s) + "' is not a number");
        }
    }

    private ConfigException invalid(Setting s, String why) {
        return new ConfigException("setting " + s.key() + " (from " + sources.get(s) + ") " + why);
    }

    public String get(Setting s) {
        return values.get(s);
    }

    public String source(Setting s) {
        return sources.get(s);
    }

    public String host() {
        return get(Setting.HOST);
    }

    public int port() {
        return integer(Setting.PORT);
    }

    public Path dataDir() {
        return Path.of(get(Setting.DATA_DIR)).toAbsolutePath().normalize();
    }

    /** The JDBC URL to use: the configured one, or the embedded SQLite database in the data directory. */
    public String dbUrl() {
        String url = get(Setting.DB_URL);
        if (!url.isEmpty()) {
            return url;
        }
        return "jdbc:sqlite:" + dataDir().resolve(EMBEDDED_DATABASE);
    }

    /** The embedded database's file in the data directory. */
    public static final String EMBEDDED_DATABASE = "drover.db";

    public io.drover.server.store.SqliteSync sqliteSync() {
        return io.drover.server.store.SqliteSync.valueOf(get(Setting.SQLITE_SYNCHRONOUS).toUpperCase(java.util.Locale.ROOT));
    }

    /** The NATS URL of the cluster, or null for a server on its own. */
    public String cluster() {
        String url = get(Setting.CLUSTER);
        return url.isEmpty() ? null : url;
    }

    public String dbUser() {
        return get(Setting.DB_USER);
    }

    /** db-password, or the first line of db-password-file. */
    public String dbPassword() {
        String file = get(Setting.DB_PASSWORD_FILE);
        if (file.isBlank()) {
            return get(Setting.DB_PASSWORD);
        }
        if (!get(Setting.DB_PASSWORD).isEmpty()) {
            throw invalid(Setting.DB_PASSWORD_FILE, "and db-password are both set; set one");
        }
        return secretFile(Setting.DB_PASSWORD_FILE).lines().findFirst().orElse("").strip();
    }

    /** The text of the file a {@code *-file} setting names: at most 64 KiB, so a device or a wrong path cannot stall the start. */
    private String secretFile(Setting s) {
        Path file = Path.of(get(s));
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(64 * 1024 + 1);
            if (bytes.length > 64 * 1024) {
                throw invalid(s, "names a file larger than 64 KiB");
            }
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw invalid(s, "cannot be read: " + e.getMessage());
        }
    }

    public int dbPoolSize() {
        return integer(Setting.DB_POOL_SIZE);
    }

    public int jobRetentionDays() {
        return integer(Setting.JOB_RETENTION_DAYS);
    }

    public int auditRetentionDays() {
        return integer(Setting.AUDIT_RETENTION_DAYS);
    }

    public int maxPendingKeys() {
        return integer(Setting.MAX_PENDING_KEYS);
    }

    public boolean allowPlainEnrollmentTokens() {
        return get(Setting.ALLOW_PLAIN_ENROLLMENT_TOKENS).equals("true");
    }

    public int httpMaxConnections() {
        return integer(Setting.HTTP_MAX_CONNECTIONS);
    }

    public int authFailuresPerMinute() {
        return integer(Setting.AUTH_FAILURES_PER_MINUTE);
    }

    /** The CIDRs of trusted reverse proxies (checked when the configuration is loaded). */
    public java.util.List<String> trustedProxies() {
        return java.util.Arrays.stream(get(Setting.TRUSTED_PROXIES).split(",")).map(String::strip).filter(c -> !c.isEmpty())
                .toList();
    }

    /** The targets agent installs over SSH may connect to (checked when the configuration is loaded). */
    public io.drover.core.agents.AllowedTargets agentInstallAllowedTargets() {
        return io.drover.core.agents.AllowedTargets.parse(get(Setting.AGENT_INSTALL_ALLOWED_TARGETS));
    }

    /** The token GET /metrics requires, read from metrics-token-file; null when the setting is empty. */
    public String metricsToken() {
        String file = get(Setting.METRICS_TOKEN_FILE);
        if (file.isBlank()) {
            return null;
        }
        String token = secretFile(Setting.METRICS_TOKEN_FILE).strip();
        if (token.length() < 16 || token.length() > 1024 || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw invalid(Setting.METRICS_TOKEN_FILE, "must hold one token of 16 to 1,024 printable ASCII characters");
        }
        return token;
    }

    /** The PEM files of the API's certificate and key, or null when the API serves plain HTTP. */
    public io.drover.server.http.ServerCertificate.PemFiles tls() {
        String cert = get(Setting.TLS_CERT).strip();
        String key = get(Setting.TLS_KEY).strip();
        if (cert.isEmpty() != key.isEmpty()) {
            Setting missing = cert.isEmpty() ? Setting.TLS_CERT : Setting.TLS_KEY;
            throw invalid(missing, "is empty: tls-cert and tls-key go together (the certificate and its private key)");
        }
        return cert.isEmpty() ? null : new io.drover.server.http.ServerCertificate.PemFiles(Path.of(cert), Path.of(key));
    }

    /** Reads the certificate and key once, so that a file that cannot serve stops the start with one line naming it. */
    private void tlsCertificate() {
        io.drover.server.http.ServerCertificate.PemFiles files = tls();
        if (files == null) {
            return;
        }
        try {
            io.drover.server.http.ServerCertificate.read(files);
        } catch (io.drover.server.http.ServerCertificate.Unusable e) {
            throw invalid(Setting.byKey(e.part().setting()), e.getMessage());
        }
    }

    /** True when the API listens on a loopback address only; a name that does not resolve counts as not loopback. */
    public boolean loopbackHost() {
        try {
            return java.net.InetAddress.getByName(host()).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    public int eventRetentionDays() {
        return integer(Setting.EVENT_RETENTION_DAYS);
    }

    public int jobTimeoutSeconds() {
        return integer(Setting.JOB_TIMEOUT_SECONDS);
    }

    public int taskConcurrency() {
        return integer(Setting.TASK_CONCURRENCY);
    }

    public int diagnosisConcurrency() {
        return integer(Setting.DIAGNOSIS_CONCURRENCY);
    }

    public int diagnosisRetrySeconds() {
        return integer(Setting.DIAGNOSIS_RETRY_SECONDS);
    }

    public int diagnosisRepeatIntervalSeconds() {
        return integer(Setting.DIAGNOSIS_REPEAT_INTERVAL_SECONDS);
    }

    public int diagnosisRetentionPerHost() {
        return integer(Setting.DIAGNOSIS_RETENTION_PER_HOST);
    }

    public int diagnosisRetentionHours() {
        return integer(Setting.DIAGNOSIS_RETENTION_HOURS);
    }

    public int diagnosisMaxPaths() {
        return integer(Setting.DIAGNOSIS_MAX_PATHS);
    }

    public int inspectionIntervalSeconds() {
        return integer(Setting.INSPECTION_INTERVAL_SECONDS);
    }

    public int inventoryDebounceSeconds() {
        return integer(Setting.INVENTORY_DEBOUNCE_SECONDS);
    }

    public int inventoryDebounceMaxSeconds() {
        return integer(Setting.INVENTORY_DEBOUNCE_MAX_SECONDS);
    }

    public String saltHost() {
        return get(Setting.SALT_HOST);
    }

    public int saltPublishPort() {
        return integer(Setting.SALT_PUBLISH_PORT);
    }

    public int saltRequestPort() {
        return integer(Setting.SALT_REQUEST_PORT);
    }

    public int saltMaxMessageBytes() {
        return integer(Setting.SALT_MAX_MESSAGE_BYTES);
    }

    public int saltMaxConnections() {
        return integer(Setting.SALT_MAX_CONNECTIONS);
    }

    /** What one source address may cost on the transport ports, and the blocks exempt from it (checked when loaded). */
    public io.drover.transport.admission.AddressLimits saltAddressLimits() {
        return new io.drover.transport.admission.AddressLimits(integer(Setting.SALT_MAX_CONNECTIONS_PER_ADDRESS),
                integer(Setting.SALT_SIGN_INS_PER_ADDRESS_PER_MINUTE), io.drover.core.net.AddressBlock.parseAll(
                java.util.Arrays.stream(get(Setting.SALT_ADDRESS_LIMITS_EXEMPT).split(",")).map(String::strip)
                        .filter(c -> !c.isEmpty()).toList()));
    }

    public int returnMaxBytes() {
        return integer(Setting.RETURN_MAX_BYTES);
    }

    /** Id globs whose new keys are accepted at once. */
    public java.util.List<String> autoAccept() {
        return java.util.Arrays.stream(get(Setting.AUTO_ACCEPT).split(",")).map(String::strip).filter(g -> !g.isEmpty())
                .toList();
    }

    /** System property the launcher sets to the distribution's directory. */
    public static final String HOME_PROPERTY = "drover.home";

    /**
     * The directory whose agent packages are registered at start: agent-packages-dir, else the distribution's
     * {@code <drover.home>/agent-packages}; null when neither is given (a server run from classes).
     */
    public Path agentPackagesDir() {
        String dir = get(Setting.AGENT_PACKAGES_DIR).strip();
        if (!dir.isEmpty()) {
            return Path.of(dir).toAbsolutePath().normalize();
        }
        String home = System.getProperty(HOME_PROPERTY);
        return home == null || home.isBlank() ? null : Path.of(home, "agent-packages").toAbsolutePath().normalize();
    }

    public long agentPackageMaxBytes() {
        return integer(Setting.AGENT_PACKAGE_MAX_BYTES);
    }

    /** The business of agents accepted without an enrollment token, or null. */
    public Long agentBiz() {
        String value = get(Setting.AGENT_BIZ).strip();
        return value.isEmpty() ? null : (long) integer(Setting.AGENT_BIZ);
    }

    /** Nodegroup names with their compound expressions, in the order given. */
    public Map<String, String> nodegroups() {
        Map<String, String> groups = new java.util.LinkedHashMap<>();
        for (String pair : get(Setting.NODEGROUPS).split(";")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0 || pair.substring(eq + 1).isBlank()) {
                throw invalid(Setting.NODEGROUPS, "'" + pair.strip() + "' is not name=expression");
            }
            groups.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
        }
        return groups;
    }

    /** Whether salt-minions' returns and events must be signed (Salt's {@code require_minion_sign_messages}). */
    public boolean requireMinionSignMessages() {
        return get(Setting.REQUIRE_MINION_SIGN_MESSAGES).equals("true");
    }

    public String saltPublishMode() {
        return get(Setting.SALT_PUBLISH_MODE);
    }

    public String logFormat() {
        return get(Setting.LOG_FORMAT);
    }

    /** A copy with some settings replaced, as if given as flags; used by quickstart and tests. */
    public ServerConfig with(Map<Setting, String> overrides) {
        Map<Setting, String> flags = new EnumMap<>(Setting.class);
        flags.putAll(values);
        flags.putAll(overrides);
        Map<Setting, String> merged = new EnumMap<>(Setting.class);
        merged.putAll(sources);
        overrides.keySet().forEach(s -> merged.put(s, "override"));
        ServerConfig config = new ServerConfig(flags, merged);
        config.validate();
        return config;
    }
}
