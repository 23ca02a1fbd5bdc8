package io.drover.server.registries;

import io.drover.model.packages.RegistryInfo;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The SQL of the {@code registry} table: the configured registries in lookup order. */
final class RegistryStore {
    private final Clock clock;

    RegistryStore(Clock clock) {
        this.clock = clock;
    }

    List<RegistryInfo> all(Handle h) {
        return h.createQuery("SELECT * FROM registry ORDER BY position, name").map((rs, ctx) -> info(rs)).list();
    }

    Optional<RegistryInfo> find(Handle h, String name) {
        return h.createQuery("SELECT * FROM registry WHERE name = :name").bind("name", name).map((rs, ctx) -> info(rs)).findOne();
    }

    /** Adds a registry after the others (last in lookup order). */
    void append(Handle h, String name, String type, String url, String path, String ref, boolean insecure) {
        int position = h.createQuery("SELECT COALESCE(MAX(position), 0) + 1 FROM registry").mapTo(Integer.class).one();
        h.createUpdate("""
                        INSERT INTO registry (name, type, url, path, ref, position, created_at, insecure)
                        VALUES (:name, :type, :url, :path, :ref, :position, :now, :insecure)""")
                .bind("name", name).bind("type", type).bind("url", url).bind("path", path)
                .bind("ref", ref).bind("position", position).bind("now", OffsetDateTime.now(clock))
                .bind("insecure", insecure).execute();
    }

    void delete(Handle h, String name) {
        h.createUpdate("DELETE FROM registry WHERE name = :name").bind("name", name).execute();
    }

    private static RegistryInfo info(ResultSet rs) throws SQLException {
        return new RegistryInfo(rs.getString("name"), rs.getString("type"), rs.getString("url"), rs.getString("path"),
                rs.getString("ref"), rs.getInt("position"), SqlTime.read(rs, "created_at"), rs.getBoolean("insecure"));
    }
}
