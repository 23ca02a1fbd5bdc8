package io.drover.model.plans;

import java.util.List;

/** A plan on its way: its ID, the job that carries it, the agents it went to and the listed ones that have no accepted key. */
public record PlanStarted(String id, String jid, List<String> minions, List<String> missing) {
}
