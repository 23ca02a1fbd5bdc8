package io.drover.server.auth;

import io.drover.model.auth.Role;
import io.drover.server.errors.DomainException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Set;

/** Who is calling: the token's id and name, its role, and the businesses it may touch (empty = all). */
public record Principal(long tokenId, String name, Role role, Set<Long> bizIds) {

    /** The server itself acting for one of its parts (subscriptions, agent registration): named "system:<part>" in jobs and logs. */
    public static Principal system(String part) {
        return new Principal(0, "system:" + part, Role.ADMIN, Set.of());
    }

    /**
     * An installer on a host presenting an enrollment token ({@code Authorization: Enroll <token>}): only the routes that
     * take such a token let it in, and it carries the token's business (the least role, never checked against a route's).
     */
    public static Principal installer(io.drover.model.agents.EnrollmentTokenInfo token) {
        return new Principal(0, "enrollment token '" + token.name() + "' (#" + token.id() + ")", Role.VIEWER,
                Set.of(token.bkBizId()));
    }

    public Principal {
        bizIds = Set.copyOf(bizIds);
    }

    /**
     * This caller limited to some of its businesses: the server acting for work one business owns (a subscription's
     * task, a diagnosis of one host) so that the checks on every job it starts refuse agents of any other.
     */
    public Principal limitedTo(Collection<Long> businesses) {
        if (businesses.isEmpty() || !businesses.stream().allMatch(this::mayTouch)) {
            // an empty set would mean every business
            throw new IllegalArgumentException(name + " cannot be limited to " + businesses + " (it covers " + bizIds + ")");
        }
        return new Principal(tokenId, name, role, Set.copyOf(businesses));
    }

    public boolean allBusinesses() {
        return bizIds.isEmpty();
    }

    public boolean mayTouch(long bizId) {
        return bizIds.isEmpty() || bizIds.contains(bizId);
    }

    /** Refuses with 403 when the token is limited to other businesses. */
    public void requireBiz(long bizId) {
        if (!mayTouch(bizId)) {
            throw DomainException.forbidden("token '" + name + "' may not touch business " + bizId
                    + " (it is limited to " + bizIds.stream().sorted().toList() + ")");
        }
    }

    public void requireBizzes(Collection<Long> ids) {
        ids.forEach(this::requireBiz);
    }

    /** Refuses with 403 unless the token covers every business: creating businesses, say. */
    public void requireAllBusinesses(String action) {
        if (!allBusinesses()) {
            throw DomainException.forbidden("token '" + name + "' is limited to businesses "
                    + bizIds.stream().sorted().toList() + " and may not " + action);
        }
    }

    /**
     * Refuses with 403 unless every agent named is in a business this token covers; {@code businessesOf} maps agents
     * to their business (an agent left out belongs to none) and is asked only for a token limited to businesses.
     * {@code what} says where the agents come from. The refusal gives only how many are outside: naming them would let
     * the token learn the agent ids of other businesses (a target such as a glob resolves on the server).
     */
    public void requireAgents(Collection<String> ids, Function<Collection<String>, Map<String, Long>> businessesOf, String what) {
        long outside = outside(ids, businessesOf);
        if (outside > 0) {
            throw DomainException.forbidden("token '" + name + "' is limited to businesses " + bizIds.stream().sorted().toList()
                    + ": " + outside + " of the " + ids.size() + " agents " + what + " are outside them");
        }
    }

    /**
     * For an object named by id in a path (a job, a plan) that ran on these agents: as missing (404) unless this token's
     * businesses hold every one of them, so that the answer does not tell another business's object from no object.
     */
    public void requireAgentsOrMissing(Collection<String> ids, Function<Collection<String>, Map<String, Long>> businessesOf,
                                       String kind, String id) {
        if (outside(ids, businessesOf) > 0) {
            throw DomainException.notFound(kind, id);
        }
    }

    /** How many of these agents are in no business this token covers (none for a token of every business). */
    private long outside(Collection<String> ids, Function<Collection<String>, Map<String, Long>> businessesOf) {
        if (allBusinesses()) {
            return 0;
        }
        Map<String, Long> businesses = businessesOf.apply(ids);
        return ids.stream().filter(agent -> !covers(businesses.get(agent))).count();
    }

    /** Whether this token covers an object of business {@code bizId}; null (no business) only for all-business tokens. */
    public boolean covers(Long bizId) {
        return allBusinesses() || (bizId != null && bizIds.contains(bizId));
    }

    /** The business filter for list queries: null means no filter. */
    public List<Long> bizFilter() {
        return bizIds.isEmpty() ? null : bizIds.stream().sorted().toList();
    }
}
