package io.drover.server.subscriptions;

import io.drover.core.subscriptions.SpecValidator;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;

/** Subscriptions as stored: the spec (JSON, NodeMan's field names) and whether it is enabled. */
public final class SubscriptionStore {
    private final Jdbi jdbi;
    private final Clock clock;

    public SubscriptionStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    static void validate(SubscriptionSpec spec) {
        List<SpecValidator.Problem> problems = SpecValidator.validate(spec);
        if (!problems.isEmpty()) {
            throw DomainException.invalid(problems.stream().map(p -> new FieldError(p.field(), p.message())).toList());
        }
    }

    public SubscriptionInfo create(SubscriptionSpec spec) {
        validate(spec);
        OffsetDateTime now = OffsetDateTime.now(clock);
        long id = jdbi.withHandle(h -> h.createUpdate("""
                        INSERT INTO subscription (name, bk_biz_id, object_type, node_type, spec, enabled, created_at, updated_at)
                        VALUES (:name, :biz, :object, :node, :spec, :enabled, :now, :now)""")
                .bind("name", spec.name().strip()).bind("biz", spec.scope().bkBizId())
                .bind("object", spec.scope().objectType()).bind("node", spec.scope().nodeType())
                .bind("spec", Sql.toJson(spec)).bind("enabled", !Boolean.FALSE.equals(spec.enable())).bind("now", now)
                .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
        return get(id);
    }

    public SubscriptionInfo get(long id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM subscription WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> info(rs)).findOne()).orElseThrow(() -> DomainException.notFound("subscription", id));
    }

    /** Subscriptions, optionally of one business and/or deploying one plugin. */
    public List<SubscriptionInfo> list(Long bizId, String plugin) {
        List<SubscriptionInfo> all = jdbi.withHandle(h -> h.createQuery("SELECT * FROM subscription"
                        + (bizId == null ? "" : " WHERE bk_biz_id = :biz") + " ORDER BY id")
                .bindMap(bizId == null ? java.util.Map.of() : java.util.Map.of("biz", bizId)).map((rs, ctx) -> info(rs)).list());
        return plugin == null ? all : all.stream().filter(s -> s.spec().steps().stream()
                .anyMatch(step -> step.config() != null && plugin.equals(step.config().pluginName()))).toList();
    }

    /** Name, scope and steps may change; target_hosts and object_type are fixed at creation. */
    public SubscriptionInfo update(long id, SubscriptionSpec spec) {
        SubscriptionInfo before = get(id);
        validate(spec);
        checkFixedFields(before, spec);
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE subscription SET name = :name, bk_biz_id = :biz, node_type = :node, spec = :spec,
                               updated_at = :now WHERE id = :id""")
                .bind("name", spec.name().strip()).bind("biz", spec.scope().bkBizId()).bind("node", spec.scope().nodeType())
                .bind("spec", Sql.toJson(spec)).bind("now", OffsetDateTime.now(clock)).bind("id", id).execute());
        return get(id);
    }

    static void checkFixedFields(SubscriptionInfo before, SubscriptionSpec spec) {
        if (!Objects.equals(before.spec().targetHosts(), spec.targetHosts())) {
            throw DomainException.conflict("target_hosts_fixed", "target_hosts is fixed when a subscription is created "
                    + "(changing it would leave copies deployed where nothing manages them); create a new subscription");
        }
        if (!before.objectType().equals(spec.scope().objectType())) {
            throw DomainException.conflict("object_type_fixed", "scope.object_type is fixed when a subscription is created ("
                    + before.objectType() + "): its instances and group ids depend on it; create a new subscription");
        }
    }

    public void setEnabled(long id, boolean enabled) {
        get(id);
        jdbi.useHandle(h -> h.createUpdate("UPDATE subscription SET enabled = :enabled, updated_at = :now WHERE id = :id")
                .bind("enabled", enabled).bind("now", OffsetDateTime.now(clock)).bind("id", id).execute());
    }

    public void delete(long id) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM subscription WHERE id = :id").bind("id", id).execute());
    }

    private static SubscriptionInfo info(ResultSet rs) throws SQLException {
        return new SubscriptionInfo(rs.getLong("id"), rs.getString("name"), rs.getLong("bk_biz_id"),
                rs.getString("object_type"), rs.getString("node_type"), rs.getBoolean("enabled"),
                Sql.fromJson(rs.getString("spec"), SubscriptionSpec.class), SqlTime.read(rs, "created_at"),
                SqlTime.read(rs, "updated_at"));
    }
}
