package io.drover.agent.functions;

import io.drover.model.agentapi.AgentCall.UpgradeAgent;
import io.drover.model.agentapi.AgentResult.UpgradeHandedOver;
import java.io.IOException;

/** {@code agent.upgrade}: the agent's own upgrade, handed over to its package's installer. */
public interface AgentUpgrader {

    /** Hands over to the installer, or throws {@link Refused} saying why not. */
    UpgradeHandedOver start(UpgradeAgent call) throws IOException;

    /** What an agent that does not run from an installed package answers (tests, the load tool). */
    AgentUpgrader NOT_INSTALLED = call -> {
        throw new Refused("this agent does not run from an installed package (drover-agent install): upgrade it the way "
                + "it was installed");
    };

    /** An upgrade the agent does not start; the message says why. */
    final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Refused(String message) {
            super(message);
        }
    }
}
