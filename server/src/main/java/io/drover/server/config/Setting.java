package io.drover.server.config;

import io.drover.transport.admission.AddressLimits;
import java.util.Locale;

/**
 * Every server setting, with the one name used for its flag ({@code --name}), its environment variable
 * ({@code DROVER_NAME}) and its key in {@code drover.yaml}.
 */
public enum Setting {
    HOST("host", "127.0.0.1", "Interface the HTTP API listens on."),
    PORT("port", "8080", "HTTP API port (0 picks a free port)."),
    TLS_CERT("tls-cert", "", "PEM file with the API's certificate, then the certificates that issued it; with tls-key the API "
            + "and the console are served over HTTPS only (with HSTS). Both files are read again when they change, so a "
            + "renewed certificate needs no restart. Empty: plain HTTP."),
    TLS_KEY("tls-key", "", "PEM file with the private key of tls-cert (PKCS#8, PKCS#1 or SEC1, unencrypted); let only the "
            + "server's user read it."),
    DATA_DIR("data-dir", "./data", "Directory for the embedded database, the admin token file and server state."),
    DB_URL("db-url", "", "JDBC URL of the database; empty means the embedded SQLite database drover.db in the data directory. "
            + "Example: jdbc:postgresql://127.0.0.1:5432/drover"),
    SQLITE_SYNCHRONOUS("sqlite-synchronous", "normal", "How the embedded SQLite database syncs: normal keeps every acknowledged "
            + "write through a killed process, but a power loss or a kernel crash can lose the last commits; full also "
            + "syncs each commit to the disk, so nothing acknowledged is lost to those either, at the cost of an fsync per commit."),
    CLUSTER("cluster", "", "NATS URL (nats://host:4222) shared by the servers of a cluster: jobs, returns and events reach "
            + "every server's agents and streams; needs a PostgreSQL --db-url shared by them too. Empty: one server."),
    CLUSTER_USER("cluster-user", "", "User name this server gives the cluster's NATS, with cluster-password-file."),
    CLUSTER_PASSWORD_FILE("cluster-password-file", "", "File holding the password of cluster-user."),
    CLUSTER_TOKEN_FILE("cluster-token-file", "", "File holding the token the cluster's NATS requires (its authorization token)."),
    CLUSTER_NKEY_FILE("cluster-nkey-file", "", "File holding the NKey seed (SU…, as nk -gen user writes it) of this server's NATS user; the public key is in the NATS configuration."),
    CLUSTER_TLS_CA("cluster-tls-ca", "", "PEM file of the CA certificates that sign the NATS servers' certificates; empty: the system's CAs. The server's certificate must name the host of the URL."),
    CLUSTER_TLS_CERT("cluster-tls-cert", "", "PEM file of the client certificate (chain allowed) this server presents to NATS (verify/verify_and_map), with cluster-tls-key."),
    CLUSTER_TLS_KEY("cluster-tls-key", "", "PEM file of the private key (PKCS#8: BEGIN PRIVATE KEY) of cluster-tls-cert."),
    CLUSTER_INSECURE("cluster-insecure", "false", "Join the cluster's NATS without credentials (a warning at every start and in GET /api/v1/cluster). Without it a server refuses to start in a cluster with none of cluster-user, cluster-token-file, cluster-nkey-file, cluster-tls-cert."),
    DB_USER("db-user", "", "Database user (PostgreSQL)."),
    DB_PASSWORD("db-password", "", "Database password (PostgreSQL). Prefer the environment variable to the flag."),
    DB_PASSWORD_FILE("db-password-file", "", "File holding the database password (its first line): keeps it out of the process list and the environment. Not together with db-password."),
    DB_POOL_SIZE("db-pool-size", "16", "Maximum database connections."),
    EVENT_RETENTION_DAYS("event-retention-days", "7", "Days that stored events stay available for replay."),
    JOB_RETENTION_DAYS("job-retention-days", "7", "Days that jobs and their returns are kept (drover run, and the calls of deployments, plans and diagnoses); older ones are deleted once an hour."),
    AUDIT_RETENTION_DAYS("audit-retention-days", "90", "Days that audit log entries are kept; older ones are deleted once an hour."),
    HTTP_MAX_CONNECTIONS("http-max-connections", "1024", "Connections the API port holds at once; past that it accepts no more until one closes (they wait in the listen queue), so that slow or idle clients cannot use up the open files the agents' connections need."),
    AUTH_FAILURES_PER_MINUTE("auth-failures-per-minute", "30", "Failed authentications one address may have in a minute; past that its requests without a valid token get 429 until the minute is over (a valid token is always served). The audit log records failures once per address and minute."),
    TRUSTED_PROXIES("trusted-proxies", "", "Comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed when failed authentications are counted per client address; empty: the TCP peer's address counts."),
    METRICS_TOKEN_FILE("metrics-token-file", "", "File holding a token that GET /metrics then requires (Authorization: Bearer <token>, Prometheus's credentials_file); empty: /metrics is open."),
    LOG_FORMAT("log-format", "text", "Log format: text or json (one JSON object per line)."),
    SALT_HOST("salt-host", "127.0.0.1", "Interface of the agent transport (Salt's publish and request ports); 0.0.0.0 for every interface."),
    SALT_PUBLISH_PORT("salt-publish-port", "4505", "Publish port of the agent transport (0 picks a free port)."),
    SALT_REQUEST_PORT("salt-request-port", "4506", "Request port of the agent transport (0 picks a free port)."),
    SALT_PUBLISH_MODE("salt-publish-mode", "filtered", "How jobs for salt-minions are published: filtered (one frame per targeted minion, topic sha1(id): untargeted minions never receive the job; a job for every accepted minion is sent as one broadcast frame) or broadcast (one frame with topic 'broadcast' that every salt-minion receives and checks itself). A Drover agent always gets its jobs in a frame of its own, under its own key."),
    REQUIRE_MINION_SIGN_MESSAGES("require-minion-sign-messages", "false", "Salt's require_minion_sign_messages: refuse (and count) returns and events from salt-minions that are not signed by their key (salt-minions sign with minion_sign_messages: True). Drover agents are not concerned: their requests are under a key of their own."),
    SALT_MAX_MESSAGE_BYTES("salt-max-message-bytes", "16777216", "Largest request an agent may send on the request port (a job return is the largest); a connection that announces a bigger frame is closed before anything is read."),
    SALT_MAX_CONNECTIONS("salt-max-connections", "50000", "Connections accepted on each transport port; more are closed at once (an agent holds one on each)."),
    SALT_MAX_CONNECTIONS_PER_ADDRESS("salt-max-connections-per-address", String.valueOf(AddressLimits.DEFAULT_MAX_CONNECTIONS),
            "Connections one source address may hold on each transport port (an agent holds one on each); more are closed "
            + "at accept and counted (drover_salt_address_connections_refused_total). 0: no limit. The default only stops "
            + "floods; a NAT address with more agents behind it needs a higher value or salt-address-limits-exempt."),
    SALT_SIGN_INS_PER_ADDRESS_PER_MINUTE("salt-sign-ins-per-address-per-minute", String.valueOf(AddressLimits.DEFAULT_SIGN_INS_PER_MINUTE),
            "Sign-ins (_auth: each costs an RSA signature, a new key a pending-key row) one source address may make in a "
            + "minute; more are answered with a plain refusal, without RSA work or a stored key, and counted "
            + "(drover_salt_address_sign_ins_refused_total); agents and salt-minions wait and try again. 0: no limit."),
    SALT_ADDRESS_LIMITS_EXEMPT("salt-address-limits-exempt", AddressLimits.DEFAULT_EXEMPT, "Comma-separated CIDRs of "
            + "source addresses that salt-max-connections-per-address and salt-sign-ins-per-address-per-minute do not "
            + "count (a NAT gateway in front of a large fleet, say). The default exempts loopback: local agents and the "
            + "load generators, which run thousands of agents from 127.0.0.1. Empty: every address counts."),
    RETURN_MAX_BYTES("return-max-bytes", "1048576", "Largest job return stored (as JSON); a larger one is stored as an error that names this limit."),
    AUTO_ACCEPT("auto-accept", "", "Comma-separated id globs whose new agent keys are accepted without an operator; empty (the default) accepts none."),
    NODEGROUPS("nodegroups", "", "Named targets for tgt_type nodegroup (drover run -N NAME): 'name=compound expression' pairs separated by ';', e.g. web=G@roles:web;edge=L@lb-1,lb-2 or N@web."),
    JOB_TIMEOUT_SECONDS("job-timeout-seconds", "120", "Seconds a subscription waits for an agent to answer one sub-step before failing the instance with that reason."),
    TASK_CONCURRENCY("task-concurrency", "200", "Instances a subscription task works on at the same time."),
    DIAGNOSIS_CONCURRENCY("diagnosis-concurrency", "200", "Diagnosis operations running on agents at the same time."),
    DIAGNOSIS_RETRY_SECONDS("diagnosis-retry-seconds", "30", "First wait before a diagnosis tries an offline or silent agent again (doubling, 4 more tries, then the diagnosis fails with AgentUnavailable)."),
    DIAGNOSIS_REPEAT_INTERVAL_SECONDS("diagnosis-repeat-interval-seconds", "21600", "An alert fingerprint (or an event trigger on a host) starts at most one diagnosis per interval."),
    DIAGNOSIS_RETENTION_PER_HOST("diagnosis-retention-per-host", "20", "Ended diagnoses kept per host (the newest); older ones are deleted once an hour (KubeDiag's maximum-diagnoses-per-node). A running diagnosis is never deleted."),
    DIAGNOSIS_RETENTION_HOURS("diagnosis-retention-hours", "240", "Hours an ended diagnosis is kept after it started; older ones are deleted once an hour (KubeDiag's diagnosis-ttl). A running diagnosis is never deleted."),
    DIAGNOSIS_MAX_PATHS("diagnosis-max-paths", "10000", "An OperationSet with more paths than this is refused."),
    INSPECTION_INTERVAL_SECONDS("inspection-interval-seconds", "3600", "Every enabled subscription is re-planned once per interval (spread over it); 0 turns inspection off."),
    INVENTORY_DEBOUNCE_SECONDS("inventory-debounce-seconds", "10", "Seconds after the last inventory change before the affected TOPO subscriptions are re-planned."),
    INVENTORY_DEBOUNCE_MAX_SECONDS("inventory-debounce-max-seconds", "60", "Seconds after the first of a burst of inventory or agent changes by which the re-plan runs even if changes keep coming."),
    ALLOW_PLAIN_ENROLLMENT_TOKENS("allow-plain-enrollment-tokens", "false", "Accept enrollment tokens that agents older than this server send in clear in their sign-in (anyone on the path can read and reuse them); current agents seal them to the master's key."),
    MAX_PENDING_KEYS("max-pending-keys", "10000", "Pending agent keys kept at most: anyone who reaches the request port can present one; past this the oldest pending key is dropped (with a salt/key event)."),
    AGENT_PACKAGES_DIR("agent-packages-dir", "", "Directory whose agent packages (drover-agent-<version>-linux-<arch>.tar.gz, each "
            + "with its .sha256 beside it) are registered at start when the server does not hold them yet; empty: the "
            + "distribution's own, <drover home>/agent-packages (none when the server runs from classes)."),
    AGENT_PACKAGE_MAX_BYTES("agent-package-max-bytes", "536870912", "Largest agent package POST /api/v1/agent-packages accepts, in bytes; "
            + "a larger one is refused (413) before it is stored."),
    AGENT_INSTALL_ALLOWED_TARGETS("agent-install-allowed-targets", "*", "Comma-separated address blocks an agent install "
            + "over SSH may connect to (its hosts and jump host), each with optional ports: 10.0.0.0/8:22, "
            + "192.168.0.0/16:2200-2299, [fd00::/8]:22, *:22; a host name is resolved once when the install is asked for, "
            + "checked and connected to at that address. A target outside is refused (422). The default * allows every "
            + "address: an operator can then make the server open TCP connections anywhere it reaches; set it in production."),
    AGENT_BIZ("agent-biz", "", "Business whose idle module receives the hosts of agents accepted without an enrollment token; empty: such agents stay unlinked until an operator places them.");

    private final String key;
    private final String defaultValue;
    private final String description;

    Setting(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    public String key() {
        return key;
    }

    public String flag() {
        return "--" + key;
    }

    public String envVar() {
        return "DROVER_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** A setting that is on or off: its flag may be given without a value ({@code --cluster-insecure}). */
    public boolean isSwitch() {
        return defaultValue.equals("false");
    }

    public static Setting byKey(String key) {
        for (Setting s : values()) {
            if (s.key.equals(key)) {
                return s;
            }
        }
        return null;
    }
}
