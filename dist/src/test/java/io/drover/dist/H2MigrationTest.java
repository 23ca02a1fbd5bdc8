package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.store.SqliteFile;
import io.drover.server.testing.TestServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory the last H2 release wrote (h2-release-data.zip: a real server, real agents and the CLI filled every
 * table; made by the release at ba67d7f) is refused by the server with the command that copies it, copied by
 * {@code drover db migrate-h2} with every table's rows, and then served: tokens, agents, jobs, plans, diagnoses.
 */
class H2MigrationTest {
    @TempDir
    Path dir;

    @Test
    void anH2DataDirectoryIsRefusedThenCopiedRowForRowAndServed() throws Exception {
        Path data = unzipFixture();
        Map<String, Long> h2Rows = h2RowCounts(data);
        assertThat(h2Rows).hasSizeGreaterThanOrEqualTo(30).allSatisfy((table, rows) -> assertThat(rows).as(table).isPositive());
        String firstJid;
        OffsetDateTime firstJobAt;
        try (Connection c = DriverManager.getConnection(h2Url(dir.resolve("h2-copy"))); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT jid, created_at FROM job WHERE jid IN (SELECT jid FROM job_return) ORDER BY jid LIMIT 1")) {
            rs.next();
            firstJid = rs.getString(1);
            firstJobAt = rs.getObject(2, OffsetDateTime.class);
        }

        assertThatThrownBy(() -> TestServer.start(data, Map.of())).isInstanceOf(SqliteFile.StrandedH2.class)
                .hasMessageContaining("drover db migrate-h2 " + data);
        assertThat(data.resolve("drover.db")).doesNotExist();

        DatabaseBackupTest.Run run = DatabaseBackupTest.drover("db", "migrate-h2", data.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("job_return: " + h2Rows.get("job_return") + " rows");
        assertThat(data.resolve("drover.mv.db")).doesNotExist();
        assertThat(data.resolve("drover.mv.db.before-sqlite")).exists();
        // tables added after the last H2 release are not in its data (and start empty)
        Map<String, Long> copiedRows = new java.util.TreeMap<>(sqliteRowCounts(data.resolve("drover.db")));
        // the returns live in job_agent since schema 25, one row per agent and job with its state: the later
        // migrations ran over the copied rows
        Map<String, Long> expected = new java.util.TreeMap<>(h2Rows);
        assertThat(expected.remove("job_return")).isPositive();
        copiedRows.keySet().retainAll(expected.keySet());
        assertThat(copiedRows).isEqualTo(expected);
        assertThat(sqliteCount(data.resolve("drover.db"), "SELECT COUNT(*) FROM job_agent WHERE returned_at IS NOT NULL"))
                .isEqualTo(h2Rows.get("job_return"));

        DatabaseBackupTest.Run again = DatabaseBackupTest.drover("db", "migrate-h2", data.toString());
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("holds no H2 database");

        try (TestServer server = TestServer.start(data, Map.of())) {
            // the admin token the release wrote is still the admin's
            String token = Files.readString(data.resolve("admin.token")).strip();
            for (String path : new String[] {"/api/v1/businesses", "/api/v1/hosts?bk_biz_id=2", "/api/v1/keys", "/api/v1/enrollment-tokens",
                    "/api/v1/subscriptions", "/api/v1/plans", "/api/v1/diagnoses", "/api/v1/packages", "/api/v1/registries",
                    "/api/v1/audit", "/api/v1/businesses/2/secrets", "/api/v1/tokens"}) {
                TestServer.Response answer = server.get(path, token);
                assertThat(answer.status()).as(path).isEqualTo(200);
                assertThat(answer.text()).as(path).isNotIn("[]", "{}");
            }
            JsonNode agents = server.get("/api/v1/agents", token).body();
            assertThat(agents.toString()).contains("host-1").contains("host_has_agent");
            JsonNode job = server.get("/api/v1/jobs/" + firstJid, token).body();
            assertThat(job.path("returns").size()).isPositive();
            // each agent's state in the job, paged: derived from the copied rows by the migrations after H2's last
            JsonNode agentsOfJob = server.get("/api/v1/jobs/" + firstJid + "/returns", token).body();
            assertThat(agentsOfJob.toString()).as(agentsOfJob.toString()).contains("RETURNED");
            assertThat(agentsOfJob.path("agents").size()).isGreaterThanOrEqualTo(job.path("returns").size());
            assertThat(OffsetDateTime.parse(job.path("created_at").asText()).toInstant()).isEqualTo(firstJobAt.toInstant());
            assertThat(server.get("/api/v1/tasks/1", token).status()).isEqualTo(200);
        }
    }

    @Test
    void aDirectoryWithoutH2OrWithSqliteAlreadyIsRefusedUnchanged() throws Exception {
        DatabaseBackupTest.Run none = DatabaseBackupTest.drover("db", "migrate-h2", dir.toString());
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.err()).contains("holds no H2 database");

        Path data = unzipFixture();
        Path hostile = Files.createDirectories(dir.resolve("x;INIT=RUNSCRIPT FROM 'evil.sql'"));
        Files.copy(data.resolve("drover.mv.db"), hostile.resolve("drover.mv.db"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        DatabaseBackupTest.Run injected = DatabaseBackupTest.drover("db", "migrate-h2", hostile.toString());
        assertThat(injected.exit()).isEqualTo(1);
        assertThat(injected.err()).contains("holds ';'");
        assertThat(hostile.resolve("drover.db")).doesNotExist();

        Files.writeString(data.resolve("drover.db"), "");
        DatabaseBackupTest.Run both = DatabaseBackupTest.drover("db", "migrate-h2", data.toString());
        assertThat(both.exit()).isEqualTo(1);
        assertThat(both.err()).contains("already holds a SQLite database");
        assertThat(data.resolve("drover.mv.db")).exists();
    }

    Path unzipFixture() throws Exception {
        Path data = dir.resolve("data");
        try (InputStream in = H2MigrationTest.class.getResourceAsStream("/h2-release-data.zip");
             ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
                Path target = data.resolve(entry.getName()).normalize();
                assertThat(target.startsWith(data)).as(entry.getName()).isTrue();
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(zip, target);
                }
            }
        }
        // the counts are read from a copy: opening an H2 file rewrites it
        Files.createDirectories(dir.resolve("h2-copy"));
        Files.copy(data.resolve("drover.mv.db"), dir.resolve("h2-copy/drover.mv.db"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return data;
    }

    static String h2Url(Path dir) {
        return "jdbc:h2:file:" + dir.resolve("drover") + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE";
    }

    Map<String, Long> h2RowCounts(Path data) throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(h2Url(dir.resolve("h2-copy")))) {
            try (ResultSet tables = c.createStatement().executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'public' AND table_name <> 'flyway_schema_history'")) {
                while (tables.next()) {
                    counts.put(tables.getString(1), count(c, tables.getString(1)));
                }
            }
        }
        return counts;
    }

    static Map<String, Long> sqliteRowCounts(Path file) throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            try (ResultSet tables = c.createStatement().executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'"
                    + " AND name NOT LIKE 'sqlite_%' AND name <> 'flyway_schema_history'")) {
                while (tables.next()) {
                    counts.put(tables.getString(1), count(c, tables.getString(1)));
                }
            }
        }
        return counts;
    }

    static long sqliteCount(Path file, String query) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); ResultSet rs = c.createStatement().executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static long count(Connection c, String table) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
