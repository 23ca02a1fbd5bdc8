package io.drover.core.agents;

import io.drover.model.agents.LinkConflictReason;
import java.util.Objects;
import java.util.Optional;

/**
 * Which inventory host an agent may be linked to. The address an agent reports about itself is a claim, not a proof:
 * it is linked by itself only to a host of the business its admission gave it (its enrollment token's, else the
 * server's {@code agent-biz}) that has no other agent. Anything else waits for an admin.
 */
public final class AgentLinkRule {
    private AgentLinkRule() {
    }

    /** Linking by the claimed address: empty when the agent may be linked, else why not. */
    public static Optional<LinkConflictReason> automatic(long admittedBiz, long hostBiz, boolean hostHasOtherAgent) {
        if (hostBiz != admittedBiz) {
            return Optional.of(LinkConflictReason.OTHER_BUSINESS);
        }
        return hostHasOtherAgent ? Optional.of(LinkConflictReason.HOST_HAS_AGENT) : Optional.empty();
    }

    /**
     * An admin's link: refused over another agent unless {@code force}, and to a host of another business than the
     * agent's unless {@code moveBusiness} (an agent with no business takes the host's).
     */
    public static Optional<LinkConflictReason> byAdmin(Long agentBiz, long hostBiz, boolean hostHasOtherAgent, boolean force,
                                                       boolean moveBusiness) {
        if (hostHasOtherAgent && !force) {
            return Optional.of(LinkConflictReason.HOST_HAS_AGENT);
        }
        if (agentBiz != null && agentBiz != hostBiz && !moveBusiness) {
            return Optional.of(LinkConflictReason.OTHER_BUSINESS);
        }
        return Optional.empty();
    }

    /**
     * Whether a linked agent now claims another address than it did (recorded; the link is kept, never moved).
     * A first report, or a report without address, is no change.
     */
    public static boolean addressChanged(String previousIp, long previousCloud, String ip, long cloud) {
        return previousIp != null && ip != null && (!Objects.equals(previousIp, ip) || previousCloud != cloud);
    }
}
