package io.drover.core.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.agents.LinkConflictReason;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every combination of the facts each rule reads. */
class AgentLinkRuleTest {
    @Test
    void anAgentIsLinkedAutomaticallyOnlyToAnAgentlessHostOfItsOwnBusiness() {
        for (boolean otherAgent : new boolean[] {false, true}) {
            assertThat(AgentLinkRule.automatic(8, 7, otherAgent)).as("another business, other agent %s", otherAgent)
                    .contains(LinkConflictReason.OTHER_BUSINESS);
        }
        assertThat(AgentLinkRule.automatic(8, 8, true)).contains(LinkConflictReason.HOST_HAS_AGENT);
        assertThat(AgentLinkRule.automatic(8, 8, false)).isEmpty();
    }

    @Test
    void anAdminLinksWhenForcedOverAnotherAgentAndWhenAcceptingTheBusinessMove() {
        for (Long agentBiz : new Long[] {null, 7L, 8L}) {
            for (boolean otherAgent : new boolean[] {false, true}) {
                for (boolean force : new boolean[] {false, true}) {
                    for (boolean move : new boolean[] {false, true}) {
                        Optional<LinkConflictReason> expected = otherAgent && !force ? Optional.of(LinkConflictReason.HOST_HAS_AGENT)
                                : agentBiz != null && agentBiz != 7L && !move ? Optional.of(LinkConflictReason.OTHER_BUSINESS)
                                : Optional.empty();
                        assertThat(AgentLinkRule.byAdmin(agentBiz, 7, otherAgent, force, move))
                                .as("agent in %s, other agent %s, force %s, move %s", agentBiz, otherAgent, force, move)
                                .isEqualTo(expected);
                    }
                }
            }
        }
    }

    @Test
    void anAddressChangeIsAChangeOfIpOrCloudAfterAFirstReport() {
        assertThat(AgentLinkRule.addressChanged(null, 0, "10.0.0.1", 0)).as("first report").isFalse();
        assertThat(AgentLinkRule.addressChanged("10.0.0.1", 0, "10.0.0.1", 0)).isFalse();
        assertThat(AgentLinkRule.addressChanged("10.0.0.1", 0, "10.0.0.2", 0)).isTrue();
        assertThat(AgentLinkRule.addressChanged("10.0.0.1", 0, "10.0.0.1", 3)).isTrue();
        assertThat(AgentLinkRule.addressChanged("10.0.0.1", 0, null, 0)).as("no address reported: nothing to compare").isFalse();
    }
}
