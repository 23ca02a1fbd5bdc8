package io.drover.server.secrets;

import io.drover.core.Hashing;
import io.drover.core.subscriptions.SecretReferences;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.secrets.SecretInfo;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventStore;
import io.drover.server.store.SecretBox;
import io.drover.server.store.SqlTime;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Secrets operators pass to plugins (docs/operations.md, "Secrets for plugins"): by business and name, sealed with
 * {@link SecretBox}. Nothing answers a value back: listings show names and times, planning sees a stamp that changes
 * with the value, and {@link #open} is called only to build the job that carries it to an agent.
 */
public final class SecretStore {
    /** Largest value, in characters (a private key or a certificate bundle fits). */
    public static final int MAX_VALUE = 65_536;

    private final Jdbi jdbi;
    private final SecretBox box;
    private final EventStore events;
    /** The subscriptions of a business: who may reference a secret (the subscriptions feature's, handed in). */
    private final java.util.function.LongFunction<List<SubscriptionInfo>> subscriptions;
    private final Clock clock;

    public SecretStore(Jdbi jdbi, SecretBox box, EventStore events,
                       java.util.function.LongFunction<List<SubscriptionInfo>> subscriptions, Clock clock) {
        this.jdbi = jdbi;
        this.box = box;
        this.events = events;
        this.subscriptions = subscriptions;
        this.clock = clock;
    }

    /** Creates or replaces a secret; its value is never echoed, in the answer, the event or an error. */
    public SecretInfo put(Principal principal, long biz, String name, String value) {
        List<FieldError> errors = new ArrayList<>();
        checkName(name, errors);
        if (value == null || value.isEmpty()) {
            errors.add(new FieldError("value", "is required"));
        } else if (value.length() > MAX_VALUE) {
            errors.add(new FieldError("value", "is longer than " + MAX_VALUE + " characters"));
        } else if (value.indexOf('\0') >= 0) {
            errors.add(new FieldError("value", "holds a NUL character"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        principal.requireBiz(biz);
        OffsetDateTime now = OffsetDateTime.now(clock);
        String sealed = box.seal(value);
        jdbi.useTransaction(h -> {
            boolean replaced = h.createUpdate("UPDATE secret SET sealed = :sealed, updated_by = :by, updated_at = :now "
                            + "WHERE bk_biz_id = :biz AND name = :name")
                    .bind("sealed", sealed).bind("by", principal.name()).bind("now", now).bind("biz", biz).bind("name", name)
                    .execute() == 1;
            if (!replaced) {
                h.createUpdate("INSERT INTO secret (bk_biz_id, name, sealed, updated_by, created_at, updated_at) "
                                + "VALUES (:biz, :name, :sealed, :by, :now, :now)")
                        .bind("biz", biz).bind("name", name).bind("sealed", sealed).bind("by", principal.name())
                        .bind("now", now).execute();
            }
            events.append(h, "drover/secret/" + name + (replaced ? "/changed" : "/created"),
                    Map.of("bk_biz_id", biz, "name", name, "user", principal.name()));
        });
        events.publishPending();
        return find(biz, name).orElseThrow();
    }

    public List<SecretInfo> list(Principal principal, long biz) {
        principal.requireBiz(biz);
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM secret WHERE bk_biz_id = :biz ORDER BY name")
                .bind("biz", biz).map((rs, ctx) -> info(rs)).list());
    }

    /** Deletes a secret no subscription of its business references (409 naming them otherwise). */
    public void delete(Principal principal, long biz, String name) {
        principal.requireBiz(biz);
        if (find(biz, name).isEmpty()) {
            throw DomainException.notFound("secret", name + " in business " + biz);
        }
        List<Long> users = subscriptions.apply(biz).stream().filter(s -> references(s, name)).map(SubscriptionInfo::id).toList();
        if (!users.isEmpty()) {
            throw DomainException.conflict("secret_in_use", "secret " + name + " is referenced by subscription(s) " + users
                    + "; change them first");
        }
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM secret WHERE bk_biz_id = :biz AND name = :name").bind("biz", biz).bind("name", name).execute();
            events.append(h, "drover/secret/" + name + "/deleted", Map.of("bk_biz_id", biz, "name", name, "user", principal.name()));
        });
        events.publishPending();
    }

    /**
     * Name → a stamp of each stored secret among {@code names} (absent when not stored): a digest of its sealed form,
     * which changes whenever the secret is set and says nothing of the value.
     */
    public Map<String, String> stamps(long biz, Collection<String> names) {
        Map<String, String> stamps = new LinkedHashMap<>();
        if (names.isEmpty()) {
            return stamps;
        }
        jdbi.useHandle(h -> h.createQuery("SELECT name, sealed FROM secret WHERE bk_biz_id = :biz AND name IN (<names>)")
                .bind("biz", biz).bindList("names", List.copyOf(names))
                .map((rs, ctx) -> Map.entry(rs.getString("name"), Hashing.sha256(rs.getString("sealed")).substring(0, 16)))
                .forEach(e -> stamps.put(e.getKey(), e.getValue())));
        return stamps;
    }

    /** A secret's value, to build the job that carries it; nothing else may call this. */
    public String open(long biz, String name) {
        String sealed = jdbi.withHandle(h -> sealed(h, biz, name)).orElseThrow(() -> new IllegalStateException(
                "secret " + name + " of business " + biz + " was deleted while a task used it"));
        return box.open(sealed);
    }

    private static Optional<String> sealed(Handle h, long biz, String name) {
        return h.createQuery("SELECT sealed FROM secret WHERE bk_biz_id = :biz AND name = :name").bind("biz", biz)
                .bind("name", name).mapTo(String.class).findOne();
    }

    private Optional<SecretInfo> find(long biz, String name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM secret WHERE bk_biz_id = :biz AND name = :name")
                .bind("biz", biz).bind("name", name).map((rs, ctx) -> info(rs)).findOne());
    }

    private static SecretInfo info(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new SecretInfo(rs.getLong("bk_biz_id"), rs.getString("name"), rs.getString("updated_by"),
                SqlTime.read(rs, "created_at"), SqlTime.read(rs, "updated_at"));
    }

    private static void checkName(String name, List<FieldError> errors) {
        if (name == null || !SecretReferences.NAME.matcher(name).matches()) {
            errors.add(new FieldError("name", "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"));
        }
    }

    private static boolean references(SubscriptionInfo s, String name) {
        return s.spec().steps().stream().map(SubscriptionSpec.Step::params).filter(java.util.Objects::nonNull)
                .anyMatch(p -> SecretReferences.of(p.context()).containsValue(name));
    }
}
