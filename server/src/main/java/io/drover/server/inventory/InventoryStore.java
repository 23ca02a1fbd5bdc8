package io.drover.server.inventory;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.api.Page;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.LazyAttributes;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.server.store.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/** SQL for the inventory. Every method runs in the caller's handle, so callers choose the transaction. */
public final class InventoryStore {
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {
    };
    private static final TypeReference<List<ServiceProcess>> PROCESSES = new TypeReference<>() {
    };

    // ---- ids

    /** The next free id of a table: one more than the highest in use. A concurrent insert of the same id fails on the key. */
    public long nextId(Handle h, String table, String idColumn) {
        return h.createQuery("SELECT COALESCE(MAX(" + idColumn + "), 0) + 1 FROM " + table).mapTo(Long.class).one();
    }

    // ---- businesses

    public Optional<Business> business(Handle h, long id) {
        return h.createQuery("SELECT * FROM business WHERE bk_biz_id = :id").bind("id", id)
                .map((rs, ctx) -> business(rs)).findOne();
    }

    public Optional<Business> businessByName(Handle h, String name) {
        return h.createQuery("SELECT * FROM business WHERE bk_biz_name = :name").bind("name", name)
                .map((rs, ctx) -> business(rs)).findOne();
    }

    public List<Business> businesses(Handle h, List<Long> allowed) {
        String where = allowed == null ? "" : " WHERE bk_biz_id IN (<allowed>)";
        Query q = h.createQuery("SELECT * FROM business" + where + " ORDER BY bk_biz_id");
        if (allowed != null) {
            q.bindList("allowed", allowed.isEmpty() ? List.of(-1L) : allowed);
        }
        return q.map((rs, ctx) -> business(rs)).list();
    }

    public void insertBusiness(Handle h, Business b) {
        h.createUpdate("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES (:id, :name, :attrs)")
                .bind("id", b.bkBizId()).bind("name", b.bkBizName()).bind("attrs", Sql.toJson(b.attributes())).execute();
    }

    public void updateBusiness(Handle h, Business b) {
        h.createUpdate("UPDATE business SET bk_biz_name = :name, attributes = :attrs WHERE bk_biz_id = :id")
                .bind("id", b.bkBizId()).bind("name", b.bkBizName()).bind("attrs", Sql.toJson(b.attributes())).execute();
    }

    public void deleteBusiness(Handle h, long id) {
        h.createUpdate("DELETE FROM topo_module WHERE bk_biz_id = :id").bind("id", id).execute();
        h.createUpdate("DELETE FROM topo_set WHERE bk_biz_id = :id").bind("id", id).execute();
        h.createUpdate("DELETE FROM business WHERE bk_biz_id = :id").bind("id", id).execute();
    }

    // ---- sets

    public Optional<TopoSet> set(Handle h, long id) {
        return h.createQuery("SELECT * FROM topo_set WHERE bk_set_id = :id").bind("id", id)
                .map((rs, ctx) -> set(rs)).findOne();
    }

    public List<TopoSet> sets(Handle h, Long bizId, List<Long> allowed) {
        List<String> where = new ArrayList<>();
        if (bizId != null) {
            where.add("bk_biz_id = :biz");
        }
        if (allowed != null) {
            where.add("bk_biz_id IN (<allowed>)");
        }
        Query q = h.createQuery("SELECT * FROM topo_set" + whereClause(where) + " ORDER BY bk_set_id");
        bindFilter(q, bizId, allowed);
        return q.map((rs, ctx) -> set(rs)).list();
    }

    public void insertSet(Handle h, TopoSet s) {
        h.createUpdate("INSERT INTO topo_set (bk_set_id, bk_biz_id, bk_set_name) VALUES (:id, :biz, :name)")
                .bind("id", s.bkSetId()).bind("biz", s.bkBizId()).bind("name", s.bkSetName()).execute();
    }

    public void updateSet(Handle h, TopoSet s) {
        h.createUpdate("UPDATE topo_set SET bk_set_name = :name WHERE bk_set_id = :id")
                .bind("id", s.bkSetId()).bind("name", s.bkSetName()).execute();
    }

    public void deleteSet(Handle h, long id) {
        h.createUpdate("DELETE FROM topo_module WHERE bk_set_id = :id").bind("id", id).execute();
        h.createUpdate("DELETE FROM topo_set WHERE bk_set_id = :id").bind("id", id).execute();
    }

    // ---- modules

    public Optional<TopoModule> module(Handle h, long id) {
        return h.createQuery("SELECT * FROM topo_module WHERE bk_module_id = :id").bind("id", id)
                .map((rs, ctx) -> module(rs)).findOne();
    }

    public Optional<TopoModule> idleModule(Handle h, long bizId) {
        return h.createQuery("SELECT * FROM topo_module WHERE bk_biz_id = :biz AND is_idle = TRUE ORDER BY bk_module_id")
                .bind("biz", bizId).map((rs, ctx) -> module(rs)).findFirst();
    }

    public List<TopoModule> modules(Handle h, Long bizId, Long setId, List<Long> allowed) {
        List<String> where = new ArrayList<>();
        if (bizId != null) {
            where.add("bk_biz_id = :biz");
        }
        if (setId != null) {
            where.add("bk_set_id = :set");
        }
        if (allowed != null) {
            where.add("bk_biz_id IN (<allowed>)");
        }
        Query q = h.createQuery("SELECT * FROM topo_module" + whereClause(where) + " ORDER BY bk_module_id");
        bindFilter(q, bizId, allowed);
        if (setId != null) {
            q.bind("set", setId);
        }
        return q.map((rs, ctx) -> module(rs)).list();
    }

    public void insertModule(Handle h, TopoModule m) {
        h.createUpdate("""
                        INSERT INTO topo_module (bk_module_id, bk_set_id, bk_biz_id, bk_module_name, is_idle)
                        VALUES (:id, :set, :biz, :name, :idle)""")
                .bind("id", m.bkModuleId()).bind("set", m.bkSetId()).bind("biz", m.bkBizId())
                .bind("name", m.bkModuleName()).bind("idle", m.idle()).execute();
    }

    public void updateModule(Handle h, TopoModule m) {
        h.createUpdate("UPDATE topo_module SET bk_module_name = :name WHERE bk_module_id = :id")
                .bind("id", m.bkModuleId()).bind("name", m.bkModuleName()).execute();
    }

    public void deleteModule(Handle h, long id) {
        h.createUpdate("DELETE FROM topo_module WHERE bk_module_id = :id").bind("id", id).execute();
    }

    /** How many hosts and service instances are placed in these modules: what would stop their deletion. */
    public long occupants(Handle h, String moduleColumn, long id) {
        String modules = "SELECT bk_module_id FROM topo_module WHERE " + moduleColumn + " = :id";
        return h.createQuery("SELECT (SELECT COUNT(*) FROM host_module WHERE bk_module_id IN (" + modules + "))"
                        + " + (SELECT COUNT(*) FROM service_instance WHERE bk_module_id IN (" + modules + "))")
                .bind("id", id).mapTo(Long.class).one();
    }

    /** Host and service-instance counts per module of a business. */
    public Map<Long, long[]> moduleCounts(Handle h, long bizId) {
        Map<Long, long[]> counts = new HashMap<>();
        h.createQuery("""
                        SELECT m.bk_module_id,
                               (SELECT COUNT(*) FROM host_module hm WHERE hm.bk_module_id = m.bk_module_id),
                               (SELECT COUNT(*) FROM service_instance si WHERE si.bk_module_id = m.bk_module_id)
                        FROM topo_module m WHERE m.bk_biz_id = :biz""")
                .bind("biz", bizId)
                .map((rs, ctx) -> counts.put(rs.getLong(1), new long[] {rs.getLong(2), rs.getLong(3)}))
                .forEach(ignored -> { });
        return counts;
    }

    public long hostCount(Handle h, long bizId) {
        return h.createQuery("SELECT COUNT(*) FROM host WHERE bk_biz_id = :biz").bind("biz", bizId)
                .mapTo(Long.class).one();
    }

    // ---- hosts

    public Optional<Host> host(Handle h, long id) {
        return h.createQuery("SELECT " + HOST_COLUMNS + " FROM host h WHERE h.bk_host_id = :id").bind("id", id)
                .map((rs, ctx) -> host(rs)).findOne();
    }

    /** The business of each of these hosts (unknown ids are left out). */
    public Map<Long, Long> hostBusinesses(Handle h, java.util.Collection<Long> hostIds) {
        Map<Long, Long> out = new HashMap<>();
        List<Long> ids = List.copyOf(hostIds);
        for (int from = 0; from < ids.size(); from += 1_000) {
            h.createQuery("SELECT bk_host_id, bk_biz_id FROM host WHERE bk_host_id IN (<ids>)")
                    .bindList("ids", ids.subList(from, Math.min(ids.size(), from + 1_000)))
                    .map((rs, ctx) -> out.put(rs.getLong(1), rs.getLong(2))).forEach(ignored -> { });
        }
        return out;
    }

    /** The hosts whose name or inner address is this text (several: the same address in two clouds, say). */
    public List<Host> hostsByNameOrAddress(Handle h, String reference) {
        return h.createQuery("SELECT " + HOST_COLUMNS + " FROM host h WHERE h.bk_host_name = :ref OR h.bk_host_innerip = :ref"
                        + " ORDER BY h.bk_host_id LIMIT 10").bind("ref", reference).map((rs, ctx) -> host(rs)).list();
    }

    public Optional<Long> hostIdByAddress(Handle h, long cloudId, String ip) {
        return h.createQuery("SELECT bk_host_id FROM host WHERE bk_cloud_id = :cloud AND bk_host_innerip = :ip")
                .bind("cloud", cloudId).bind("ip", ip).mapTo(Long.class).findOne();
    }

    /** Hosts under a topology node whose name or inner address holds {@code text} (any case; null: all), one page. */
    public Page<Host> hosts(Handle h, TopoFilter filter, String text, long offset, int limit) {
        List<String> where = hostConditions(filter);
        if (text != null) {
            where.add("(LOWER(h.bk_host_name) LIKE :text ESCAPE '!' OR h.bk_host_innerip LIKE :text ESCAPE '!')");
        }
        String whereSql = whereClause(where);
        String pattern = text == null ? null : "%" + text.toLowerCase(java.util.Locale.ROOT)
                .replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
        Query count = bindHostFilter(h.createQuery("SELECT COUNT(*)" + hostSource(filter) + whereSql), filter);
        long total = (pattern == null ? count : count.bind("text", pattern)).mapTo(Long.class).one();
        Query page = bindHostFilter(h.createQuery("SELECT " + HOST_COLUMNS + hostSource(filter) + whereSql
                + " ORDER BY h.bk_host_id LIMIT :limit OFFSET :offset"), filter).bind("limit", limit).bind("offset", offset);
        List<Host> items = (pattern == null ? page : page.bind("text", pattern)).map((rs, ctx) -> host(rs)).list();
        return new Page<>(items, total, offset, limit);
    }

    /**
     * Every host under a topology node, ordered by id: what subscription scopes resolve against. Call it inside a
     * transaction so that PostgreSQL streams the rows.
     */
    public List<Host> allHosts(Handle h, TopoFilter filter) {
        return listHosts(h, filter, whereClause(hostConditions(filter)));
    }

    private List<Host> listHosts(Handle h, TopoFilter filter, String whereSql) {
        // Unpaged: let the database stream rows in index order and sort here; an ORDER BY makes H2 materialize
        // and sort every row of a large business first.
        // A fetch size lets PostgreSQL stream the rows (inside a transaction) while they are turned into hosts.
        boolean sqlite = io.drover.server.store.Dialect.of(h) == io.drover.server.store.Dialect.SQLITE;
        String columns = sqlite ? SqliteHostRows.COLUMNS : HOST_COLUMNS;
        List<Host> hosts = new ArrayList<>(bindHostFilter(h.createQuery("SELECT " + columns + hostSource(filter) + whereSql), filter)
                .setFetchSize(2_000).map((rs, ctx) -> sqlite ? SqliteHostRows.host(rs) : host(rs)).list());
        hosts.sort(java.util.Comparator.comparingLong(Host::bkHostId));
        return hosts;
    }

    public void insertHost(Handle h, Host host) {
        h.createUpdate("""
                        INSERT INTO host (bk_host_id, bk_biz_id, bk_host_innerip, bk_cloud_id, bk_host_name, os_type,
                                          cpu_arch, attributes, bk_module_ids)
                        VALUES (:id, :biz, :ip, :cloud, :name, :os, :arch, :attrs, :modules)""")
                .bind("modules", moduleList(host.bkModuleIds()))
                .bind("id", host.bkHostId()).bind("biz", host.bkBizId()).bind("ip", host.bkHostInnerip())
                .bind("cloud", host.bkCloudId()).bind("name", host.bkHostName()).bind("os", host.osType())
                .bind("arch", host.cpuArch()).bind("attrs", Sql.toJson(host.attributes())).execute();
        insertPlacements(h, host.bkHostId(), host.bkModuleIds());
    }

    /** Rewrites the host's fields, business and modules. */
    public void updateHost(Handle h, Host host) {
        h.createUpdate("""
                        UPDATE host SET bk_biz_id = :biz, bk_host_innerip = :ip, bk_cloud_id = :cloud,
                               bk_host_name = :name, os_type = :os, cpu_arch = :arch, attributes = :attrs,
                               bk_module_ids = :modules
                        WHERE bk_host_id = :id""")
                .bind("modules", moduleList(host.bkModuleIds()))
                .bind("id", host.bkHostId()).bind("biz", host.bkBizId()).bind("ip", host.bkHostInnerip())
                .bind("cloud", host.bkCloudId()).bind("name", host.bkHostName()).bind("os", host.osType())
                .bind("arch", host.cpuArch()).bind("attrs", Sql.toJson(host.attributes())).execute();
        h.createUpdate("DELETE FROM host_module WHERE bk_host_id = :id").bind("id", host.bkHostId()).execute();
        insertPlacements(h, host.bkHostId(), host.bkModuleIds());
    }

    public void deleteHost(Handle h, long id) {
        h.createUpdate("DELETE FROM host_module WHERE bk_host_id = :id").bind("id", id).execute();
        h.createUpdate("DELETE FROM host WHERE bk_host_id = :id").bind("id", id).execute();
    }

    private void insertPlacements(Handle h, long hostId, List<Long> moduleIds) {
        if (moduleIds.isEmpty()) {
            return;
        }
        var batch = h.prepareBatch("INSERT INTO host_module (bk_host_id, bk_module_id) VALUES (:host, :module)");
        for (Long moduleId : moduleIds) {
            batch.bind("host", hostId).bind("module", moduleId).add();
        }
        batch.execute();
    }

    // ---- service instances

    public Optional<ServiceInstance> serviceInstance(Handle h, long id) {
        return h.createQuery(SERVICE_SELECT + " WHERE si.id = :id").bind("id", id)
                .map((rs, ctx) -> serviceInstance(rs)).findOne();
    }

    public Page<ServiceInstance> serviceInstances(Handle h, TopoFilter filter, long offset, int limit) {
        List<String> where = new ArrayList<>();
        if (filter.moduleId() != null) {
            where.add("si.bk_module_id = :module");
        } else if (filter.setId() != null) {
            where.add("m.bk_set_id = :set");
        } else if (filter.bizId() != null) {
            where.add("m.bk_biz_id = :biz");
        }
        if (filter.hostId() != null) {
            where.add("si.bk_host_id = :host");
        }
        if (filter.allowedBiz() != null) {
            where.add("m.bk_biz_id IN (<allowed>)");
        }
        String whereSql = whereClause(where);
        long total = bindServiceFilter(h.createQuery("SELECT COUNT(*) FROM service_instance si"
                + " JOIN topo_module m ON m.bk_module_id = si.bk_module_id" + whereSql), filter).mapTo(Long.class).one();
        List<ServiceInstance> items = bindServiceFilter(h.createQuery(SERVICE_SELECT + whereSql
                + " ORDER BY si.id LIMIT :limit OFFSET :offset"), filter).bind("limit", limit).bind("offset", offset)
                .map((rs, ctx) -> serviceInstance(rs)).list();
        return new Page<>(items, total, offset, limit);
    }

    public List<ServiceInstance> serviceInstancesOfHost(Handle h, long hostId) {
        return h.createQuery(SERVICE_SELECT + " WHERE si.bk_host_id = :host ORDER BY si.id").bind("host", hostId)
                .map((rs, ctx) -> serviceInstance(rs)).list();
    }

    public void insertServiceInstance(Handle h, ServiceInstance s) {
        h.createUpdate("""
                        INSERT INTO service_instance (id, name, bk_module_id, bk_host_id, labels, processes)
                        VALUES (:id, :name, :module, :host, :labels, :processes)""")
                .bind("id", s.id()).bind("name", s.name()).bind("module", s.bkModuleId()).bind("host", s.bkHostId())
                .bind("labels", Sql.toJson(s.labels())).bind("processes", Sql.toJson(s.processes())).execute();
    }

    public void updateServiceInstance(Handle h, ServiceInstance s) {
        h.createUpdate("""
                        UPDATE service_instance SET name = :name, bk_module_id = :module, bk_host_id = :host,
                               labels = :labels, processes = :processes WHERE id = :id""")
                .bind("id", s.id()).bind("name", s.name()).bind("module", s.bkModuleId()).bind("host", s.bkHostId())
                .bind("labels", Sql.toJson(s.labels())).bind("processes", Sql.toJson(s.processes())).execute();
    }

    public void deleteServiceInstance(Handle h, long id) {
        h.createUpdate("DELETE FROM service_instance WHERE id = :id").bind("id", id).execute();
    }

    // ---- mapping and filters

    private static final String SERVICE_SELECT = "SELECT si.*, m.bk_biz_id FROM service_instance si"
            + " JOIN topo_module m ON m.bk_module_id = si.bk_module_id";

    /** The FROM clause of a host listing: a module's hosts are reached through its placements (one row per host). */
    private static String hostSource(TopoFilter filter) {
        return filter.moduleId() != null ? " FROM host_module x JOIN host h ON h.bk_host_id = x.bk_host_id" : " FROM host h";
    }

    private static List<String> hostConditions(TopoFilter filter) {
        List<String> where = new ArrayList<>();
        if (filter.moduleId() != null) {
            where.add("x.bk_module_id = :module");
        } else if (filter.setId() != null) {
            where.add("h.bk_host_id IN (SELECT x.bk_host_id FROM host_module x JOIN topo_module m"
                    + " ON m.bk_module_id = x.bk_module_id WHERE m.bk_set_id = :set)");
        }
        if (filter.bizId() != null) {
            where.add("h.bk_biz_id = :biz");
        }
        if (filter.allowedBiz() != null) {
            where.add("h.bk_biz_id IN (<allowed>)");
        }
        return where;
    }

    private static Query bindHostFilter(Query q, TopoFilter filter) {
        if (filter.moduleId() != null) {
            q.bind("module", filter.moduleId());
        } else if (filter.setId() != null) {
            q.bind("set", filter.setId());
        }
        bindFilter(q, filter.bizId(), filter.allowedBiz());
        return q;
    }

    private static Query bindServiceFilter(Query q, TopoFilter filter) {
        if (filter.moduleId() != null) {
            q.bind("module", filter.moduleId());
        } else if (filter.setId() != null) {
            q.bind("set", filter.setId());
        } else if (filter.bizId() != null) {
            q.bind("biz", filter.bizId());
        }
        if (filter.hostId() != null) {
            q.bind("host", filter.hostId());
        }
        if (filter.allowedBiz() != null) {
            q.bindList("allowed", filter.allowedBiz().isEmpty() ? List.of(-1L) : filter.allowedBiz());
        }
        return q;
    }

    private static void bindFilter(Query q, Long bizId, List<Long> allowed) {
        if (bizId != null) {
            q.bind("biz", bizId);
        }
        if (allowed != null) {
            q.bindList("allowed", allowed.isEmpty() ? List.of(-1L) : allowed);
        }
    }

    private static String whereClause(List<String> conditions) {
        return conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions);
    }

    private static Business business(ResultSet rs) throws SQLException {
        return new Business(rs.getLong("bk_biz_id"), rs.getString("bk_biz_name"), Sql.jsonMap(rs.getString("attributes")));
    }

    private static TopoSet set(ResultSet rs) throws SQLException {
        return new TopoSet(rs.getLong("bk_set_id"), rs.getLong("bk_biz_id"), rs.getString("bk_set_name"));
    }

    private static TopoModule module(ResultSet rs) throws SQLException {
        return new TopoModule(rs.getLong("bk_module_id"), rs.getLong("bk_set_id"), rs.getLong("bk_biz_id"),
                rs.getString("bk_module_name"), rs.getBoolean("is_idle"));
    }

    /** Module ids as stored in host.bk_module_ids: ascending, comma-separated. */
    static String moduleList(List<Long> moduleIds) {
        StringBuilder sb = new StringBuilder();
        for (Long id : moduleIds.stream().sorted().toList()) {
            sb.append(sb.isEmpty() ? "" : ",").append(id);
        }
        return sb.toString();
    }

    static List<Long> parseModuleList(String text) {
        if (text == null || text.isEmpty()) {
            return List.of();
        }
        int comma = text.indexOf(',');
        if (comma < 0) {
            return List.of(Long.parseLong(text));
        }
        List<Long> ids = new ArrayList<>(4);
        int start = 0;
        while (comma >= 0) {
            ids.add(Long.parseLong(text, start, comma, 10));
            start = comma + 1;
            comma = text.indexOf(',', start);
        }
        ids.add(Long.parseLong(text, start, text.length(), 10));
        return ids;
    }

    /** Host columns in the order {@link #host(ResultSet)} reads them by position (faster than by name). */
    private static final String HOST_COLUMNS = "h.bk_host_id, h.bk_biz_id, h.bk_host_innerip, h.bk_cloud_id, h.bk_host_name,"
            + " h.os_type, h.cpu_arch, h.attributes, h.bk_module_ids";

    private static Host host(ResultSet rs) throws SQLException {
        return new Host(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4), rs.getString(5), rs.getString(6),
                rs.getString(7), parseModuleList(rs.getString(9)), LazyAttributes.of(rs.getString(8)));
    }

    private static ServiceInstance serviceInstance(ResultSet rs) throws SQLException {
        return new ServiceInstance(rs.getLong("id"), rs.getString("name"), rs.getLong("bk_biz_id"),
                rs.getLong("bk_module_id"), rs.getLong("bk_host_id"), Sql.fromJson(rs.getString("labels"), LABELS),
                Sql.fromJson(rs.getString("processes"), PROCESSES));
    }
}
