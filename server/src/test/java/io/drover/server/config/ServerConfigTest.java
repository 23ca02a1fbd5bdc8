package io.drover.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {
    @TempDir
    Path dir;

    @Test
    void flagsBeatEnvironmentWhichBeatsTheFileWhichBeatsDefaults() throws Exception {
        Path file = dir.resolve("drover.yaml");
        Files.writeString(file, "port: 9001\nhost: 0.0.0.0\ndata-dir: /srv/drover\nlog-format: json\n");
        ServerConfig config = ServerConfig.load(Map.of(Setting.PORT, "9003"),
                Map.of("DROVER_PORT", "9002", "DROVER_HOST", "10.1.1.1"), file);
        assertThat(config.port()).isEqualTo(9003);
        assertThat(config.source(Setting.PORT)).isEqualTo("flag --port");
        assertThat(config.host()).isEqualTo("10.1.1.1");
        assertThat(config.source(Setting.HOST)).isEqualTo("environment variable DROVER_HOST");
        assertThat(config.dataDir()).isEqualTo(Path.of("/srv/drover"));
        assertThat(config.source(Setting.DATA_DIR)).contains("drover.yaml key 'data-dir'");
        assertThat(config.logFormat()).isEqualTo("json");
        assertThat(config.get(Setting.DB_POOL_SIZE)).isEqualTo(Setting.DB_POOL_SIZE.defaultValue());
        assertThat(config.source(Setting.DB_POOL_SIZE)).isEqualTo("default");
    }

    @Test
    void theDefaultDatabaseIsASqliteFileInTheDataDirectory() {
        ServerConfig config = ServerConfig.resolve(Map.of(Setting.DATA_DIR, "/var/lib/drover"), Map.of(), Map.of(), "");
        assertThat(config.dbUrl()).isEqualTo("jdbc:sqlite:/var/lib/drover/drover.db");
        assertThat(config.port()).isEqualTo(8080);
        assertThat(config.host()).isEqualTo("127.0.0.1");
    }

    @Test
    void badValuesNameTheSettingAndWhereTheyCameFrom() throws Exception {
        assertThatThrownBy(() -> ServerConfig.load(Map.of(), Map.of("DROVER_PORT", "eighty"), dir.resolve("none.yaml")))
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(), Map.of("DROVER_PORT", "eighty"), Map.of(), ""))
                .isInstanceOf(ConfigException.class)
                .hasMessage("setting port (from environment variable DROVER_PORT) 'eighty' is not a number");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.DB_URL, "jdbc:mysql://x"), Map.of(), Map.of(), ""))
                .hasMessageContaining("db-url");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.CLUSTER, "http://nats:4222",
                Setting.DB_URL, "jdbc:postgresql://db/drover"), Map.of(), Map.of(), ""))
                .hasMessageContaining("cluster").hasMessageContaining("must be a NATS URL");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.CLUSTER, "nats://a:4222,nats://b c:4222",
                Setting.DB_URL, "jdbc:postgresql://db/drover"), Map.of(), Map.of(), "")).hasMessageContaining("must be a NATS URL");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.CLUSTER, "nats://127.0.0.1:4222"), Map.of(), Map.of(), ""))
                .hasMessageContaining("needs a PostgreSQL database");
        assertThat(ServerConfig.resolve(Map.of(Setting.CLUSTER, "nats://a:4222,tls://b:4222",
                Setting.DB_URL, "jdbc:postgresql://db/drover", Setting.CLUSTER_INSECURE, "true"), Map.of(), Map.of(), "").cluster())
                .isEqualTo("nats://a:4222,tls://b:4222");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.TRUSTED_PROXIES, "10.0.0.0/8, proxy.local"), Map.of(), Map.of(), ""))
                .hasMessageContaining("setting trusted-proxies").hasMessageContaining("'proxy.local' is not an IP address");
        assertThat(ServerConfig.resolve(Map.of(Setting.TRUSTED_PROXIES, " 10.0.0.0/8 ,::1"), Map.of(), Map.of(), "").trustedProxies())
                .containsExactly("10.0.0.0/8", "::1");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.METRICS_TOKEN_FILE, dir.resolve("absent").toString()),
                Map.of(), Map.of(), "")).hasMessageContaining("setting metrics-token-file").hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.METRICS_TOKEN_FILE, "/dev/zero"), Map.of(), Map.of(), ""))
                .hasMessageContaining("setting metrics-token-file").hasMessageContaining("larger than 64 KiB");
        Files.writeString(dir.resolve("short.token"), "abc\n");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.METRICS_TOKEN_FILE, dir.resolve("short.token").toString()),
                Map.of(), Map.of(), "")).hasMessageContaining("16 to 1,024 printable");
        Files.writeString(dir.resolve("db.password"), "s3cret\nsecond line\n");
        assertThat(ServerConfig.resolve(Map.of(Setting.DB_PASSWORD_FILE, dir.resolve("db.password").toString()), Map.of(), Map.of(), "")
                .dbPassword()).isEqualTo("s3cret");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.DB_PASSWORD_FILE, dir.resolve("db.password").toString(),
                Setting.DB_PASSWORD, "x"), Map.of(), Map.of(), "")).hasMessageContaining("and db-password are both set");
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.DB_PASSWORD_FILE, dir.resolve("none").toString()), Map.of(),
                Map.of(), "")).hasMessageContaining("setting db-password-file").hasMessageContaining("cannot be read");
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "prot: 80\n");
        assertThatThrownBy(() -> ServerConfig.load(Map.of(), Map.of(), file))
                .hasMessageContaining("unknown setting 'prot'");
    }

    @Test
    void aClusterNeedsCredentialsThatNatsChecksUnlessInsecureIsGiven() throws Exception {
        Map<Setting, String> cluster = Map.of(Setting.CLUSTER, "nats://nats:4222", Setting.DB_URL, "jdbc:postgresql://db/drover");
        assertThatThrownBy(() -> ServerConfig.resolve(cluster, Map.of(), Map.of(), ""))
                .isInstanceOf(ConfigException.class).hasMessageContaining("setting cluster (from flag --cluster) needs credentials")
                .hasMessageContaining("cluster-password-file").hasMessageContaining("--cluster-insecure");
        io.drover.server.cluster.NatsCredentials insecure = ServerConfig.resolve(with(cluster, Setting.CLUSTER_INSECURE, "true"),
                Map.of(), Map.of(), "").natsCredentials();
        assertThat(insecure.none()).isTrue();
        assertThat(insecure.insecure()).isTrue();
        assertThat(insecure.kinds()).isEqualTo("none");
        assertThatThrownBy(() -> ServerConfig.resolve(with(cluster, Setting.CLUSTER_INSECURE, "yes"), Map.of(), Map.of(), ""))
                .hasMessageContaining("setting cluster-insecure").hasMessageContaining("must be true or false");

        Path secret = dir.resolve("secret");
        Files.writeString(secret, "s3cret\n");
        String file = secret.toString();
        Map<Map<Setting, String>, String> kinds = Map.of(
                Map.of(Setting.CLUSTER_USER, "drover", Setting.CLUSTER_PASSWORD_FILE, file), "user",
                Map.of(Setting.CLUSTER_TOKEN_FILE, file), "token",
                Map.of(Setting.CLUSTER_NKEY_FILE, file), "nkey",
                Map.of(Setting.CLUSTER_TLS_CERT, file, Setting.CLUSTER_TLS_KEY, file), "certificate",
                Map.of(Setting.CLUSTER, "nats://drover:pw@nats:4222"), "user",
                Map.of(Setting.CLUSTER_TOKEN_FILE, file, Setting.CLUSTER_TLS_CERT, file, Setting.CLUSTER_TLS_KEY, file,
                        Setting.CLUSTER_TLS_CA, file), "token,certificate");
        kinds.forEach((settings, kind) -> {
            Map<Setting, String> all = new EnumMap<>(cluster);
            all.putAll(settings);
            io.drover.server.cluster.NatsCredentials credentials = ServerConfig.resolve(all, Map.of(), Map.of(), "").natsCredentials();
            assertThat(credentials.kinds()).as(settings.toString()).isEqualTo(kind);
            assertThat(credentials.none()).isFalse();
        });

        assertThatThrownBy(() -> ServerConfig.resolve(with(cluster, Setting.CLUSTER_USER, "drover"), Map.of(), Map.of(), ""))
                .hasMessageContaining("setting cluster-user").hasMessageContaining("cluster-user and cluster-password-file together");
        assertThatThrownBy(() -> ServerConfig.resolve(with(cluster, Setting.CLUSTER_PASSWORD_FILE, file), Map.of(), Map.of(), ""))
                .hasMessageContaining("setting cluster-password-file").hasMessageContaining("together");
        assertThatThrownBy(() -> ServerConfig.resolve(with(cluster, Setting.CLUSTER_TLS_CERT, file), Map.of(), Map.of(), ""))
                .hasMessageContaining("setting cluster-tls-cert").hasMessageContaining("cluster-tls-cert and cluster-tls-key together");
        for (Setting s : java.util.List.of(Setting.CLUSTER_TOKEN_FILE, Setting.CLUSTER_NKEY_FILE, Setting.CLUSTER_TLS_CA)) {
            assertThatThrownBy(() -> ServerConfig.resolve(with(cluster, s, dir.resolve("absent").toString()), Map.of(), Map.of(), ""))
                    .hasMessageContaining("setting " + s.key()).hasMessageContaining("not a readable file");
            assertThatThrownBy(() -> ServerConfig.resolve(with(cluster, s, dir.toString()), Map.of(), Map.of(), ""))
                    .as("a directory").hasMessageContaining("not a readable file");
        }
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.CLUSTER_INSECURE, "1"), Map.of(), Map.of(), ""))
                .as("checked on a server alone too").hasMessageContaining("setting cluster-insecure");
        assertThat(ServerConfig.resolve(Map.of(), Map.of("DROVER_CLUSTER_TOKEN_FILE", file), with(cluster, Setting.CLUSTER_INSECURE, "false"),
                "drover.yaml").natsCredentials().tokenFile()).as("from the environment").isEqualTo(secret);
    }

    static Map<Setting, String> with(Map<Setting, String> settings, Setting s, String value) {
        Map<Setting, String> all = new EnumMap<>(settings);
        all.put(s, value);
        return all;
    }

    @Test
    void theLimitsOfTheHardeningRefuseValuesThatAreNotPositiveNumbers() {
        for (Setting limit : java.util.List.of(Setting.SALT_MAX_MESSAGE_BYTES, Setting.SALT_MAX_CONNECTIONS,
                Setting.RETURN_MAX_BYTES, Setting.AUDIT_RETENTION_DAYS, Setting.AUTH_FAILURES_PER_MINUTE,
                Setting.DIAGNOSIS_RETENTION_PER_HOST, Setting.DIAGNOSIS_RETENTION_HOURS, Setting.HTTP_MAX_CONNECTIONS)) {
            for (String bad : java.util.List.of("0", "-1", "many", "99999999999999999999", "1.5", "7\u0000")) {
                assertThatThrownBy(() -> ServerConfig.resolve(Map.of(limit, bad), Map.of(), Map.of(), ""))
                        .as("%s = %s", limit.key(), bad).isInstanceOf(ConfigException.class)
                        .hasMessageContaining("setting " + limit.key());
            }
        }
    }

    @Test
    void diagnosesAreKeptAsKubeDiagKeepsThemUnlessSetOtherwise() {
        ServerConfig defaults = ServerConfig.resolve(Map.of(), Map.of(), Map.of(), "");
        assertThat(defaults.diagnosisRetentionPerHost()).isEqualTo(20);
        assertThat(defaults.diagnosisRetentionHours()).isEqualTo(240);
        ServerConfig set = ServerConfig.resolve(Map.of(Setting.DIAGNOSIS_RETENTION_PER_HOST, "5"),
                Map.of("DROVER_DIAGNOSIS_RETENTION_HOURS", "48"), Map.of(), "");
        assertThat(set.diagnosisRetentionPerHost()).isEqualTo(5);
        assertThat(set.diagnosisRetentionHours()).isEqualTo(48);
    }

    @Test
    void thePerAddressLimitsOfTheAgentPortsTakeZeroForNoneAndCidrsForTheExemptOnes() {
        var defaults = ServerConfig.resolve(Map.of(), Map.of(), Map.of(), "").saltAddressLimits();
        assertThat(defaults.maxConnections()).isEqualTo(10_000);
        assertThat(defaults.signInsPerMinute()).isEqualTo(6_000);
        assertThat(defaults.isExempt(java.net.InetAddress.getLoopbackAddress())).as("load generators on loopback").isTrue();
        var set = ServerConfig.resolve(Map.of(Setting.SALT_MAX_CONNECTIONS_PER_ADDRESS, "0",
                Setting.SALT_SIGN_INS_PER_ADDRESS_PER_MINUTE, "60", Setting.SALT_ADDRESS_LIMITS_EXEMPT, " 203.0.113.10 , ,fd00::/8"),
                Map.of(), Map.of(), "").saltAddressLimits();
        assertThat(set.maxConnections()).isZero();
        assertThat(set.signInsPerMinute()).isEqualTo(60);
        assertThat(set.exempt()).hasToString("[203.0.113.10/32, fd00::/8]");
        assertThat(ServerConfig.resolve(Map.of(Setting.SALT_ADDRESS_LIMITS_EXEMPT, ""), Map.of(), Map.of(), "")
                .saltAddressLimits().exempt()).isEmpty();
        for (Setting limit : java.util.List.of(Setting.SALT_MAX_CONNECTIONS_PER_ADDRESS, Setting.SALT_SIGN_INS_PER_ADDRESS_PER_MINUTE)) {
            for (String bad : java.util.List.of("-1", "many", "99999999999999999999", "1.5", "7\u0000")) {
                assertThatThrownBy(() -> ServerConfig.resolve(Map.of(limit, bad), Map.of(), Map.of(), ""))
                        .as("%s = %s", limit.key(), bad).isInstanceOf(ConfigException.class)
                        .hasMessageContaining("setting " + limit.key());
            }
        }
        assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.SALT_ADDRESS_LIMITS_EXEMPT, "10.0.0.0/8, nat.example"),
                Map.of(), Map.of(), "")).hasMessageContaining("setting salt-address-limits-exempt")
                .hasMessageContaining("'nat.example' is not an IP address");
    }

    @Test
    void theAllowedTargetsOfAgentInstallsAreEveryAddressByDefaultAndABadEntryStopsTheStartNamingIt() throws Exception {
        var defaults = ServerConfig.resolve(Map.of(), Map.of(), Map.of(), "").agentInstallAllowedTargets();
        assertThat(defaults.allowsEverything()).isTrue();
        var set = ServerConfig.resolve(Map.of(Setting.AGENT_INSTALL_ALLOWED_TARGETS, "10.0.0.0/8:22, [fd00::/8]:2222"), Map.of(),
                Map.of(), "").agentInstallAllowedTargets();
        assertThat(set.allowsEverything()).isFalse();
        assertThat(set.allows(java.net.InetAddress.getByName("10.2.3.4").getAddress(), 22)).isTrue();
        assertThat(set.allows(java.net.InetAddress.getByName("10.2.3.4").getAddress(), 2222)).isFalse();
        assertThat(set.allows(java.net.InetAddress.getByName("fd00::5").getAddress(), 2222)).isTrue();
        for (String bad : java.util.List.of("", "10.0.0.0/8, bastion.example", "10.0.0.0/33", "10.0.0.0/8:0", "10.0.0.0/8\u0000")) {
            assertThatThrownBy(() -> ServerConfig.resolve(Map.of(Setting.AGENT_INSTALL_ALLOWED_TARGETS, bad), Map.of(), Map.of(), ""))
                    .as(bad).isInstanceOf(ConfigException.class).hasMessageContaining("setting agent-install-allowed-targets");
        }
    }

    @Test
    void everySettingHasAFlagAnEnvironmentVariableAndADescription() {
        for (Setting s : Setting.values()) {
            assertThat(s.flag()).startsWith("--");
            assertThat(s.envVar()).matches("DROVER_[A-Z_]+");
            assertThat(s.description()).isNotBlank();
        }
        assertThat(Setting.DB_POOL_SIZE.envVar()).isEqualTo("DROVER_DB_POOL_SIZE");
    }
}
