package io.drover.model.jobs;

import java.util.List;

/** What POST /jobs answers: the jid, the accepted minions targeted, and listed ids that are not accepted minions. */
public record JobStarted(String jid, List<String> minions, List<String> missing) {
}
