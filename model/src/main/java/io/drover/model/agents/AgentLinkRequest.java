package io.drover.model.agents;

/**
 * An admin links an agent to a host: {@code force} unlinks another agent the host has; {@code move_business} lets
 * the agent move to the host's business when that is not the business its admission gave it.
 */
public record AgentLinkRequest(Long bkHostId, Boolean force, Boolean moveBusiness) {
}
