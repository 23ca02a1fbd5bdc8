package io.drover.server.addons;

import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The SQL of the {@code addon} table; methods run in the caller's transaction. */
final class AddonStore {
    /** An enabled addon; its parameters sealed (SecretBox). */
    record Enabled(String name, String version, String registry, String sealedParams, OffsetDateTime enabledAt,
                   OffsetDateTime updatedAt) {
    }

    Optional<Enabled> find(Handle h, String name) {
        return h.createQuery("SELECT * FROM addon WHERE name = :name").bind("name", name).map((rs, ctx) -> enabled(rs)).findOne();
    }

    List<Enabled> all(Handle h) {
        return h.createQuery("SELECT * FROM addon ORDER BY name").map((rs, ctx) -> enabled(rs)).list();
    }

    void insert(Handle h, String name, String version, String registry, String sealedParams, OffsetDateTime now) {
        h.createUpdate("""
                        INSERT INTO addon (name, version, registry, params, enabled_at, updated_at)
                        VALUES (:name, :version, :registry, :params, :now, :now)""")
                .bind("name", name).bind("version", version).bind("registry", registry).bind("params", sealedParams)
                .bind("now", now).execute();
    }

    void update(Handle h, String name, String version, String registry, String sealedParams, OffsetDateTime now) {
        h.createUpdate("UPDATE addon SET version = :version, registry = :registry, params = :params, updated_at = :now "
                        + "WHERE name = :name")
                .bind("name", name).bind("version", version).bind("registry", registry).bind("params", sealedParams)
                .bind("now", now).execute();
    }

    void delete(Handle h, String name) {
        h.createUpdate("DELETE FROM addon WHERE name = :name").bind("name", name).execute();
    }

    private static Enabled enabled(ResultSet rs) throws SQLException {
        return new Enabled(rs.getString("name"), rs.getString("version"), rs.getString("registry"), rs.getString("params"),
                SqlTime.read(rs, "enabled_at"), SqlTime.read(rs, "updated_at"));
    }
}
