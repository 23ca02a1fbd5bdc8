package io.drover.model.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A job with the minions it expects, the returns stored so far, each agent's recorded state and how many agents are
 * in each ({@code GET /jobs/{jid}/returns} pages through the same for a large job).
 */
public record JobResult(String jid, String fun, List<Object> arg, String tgt, String tgtType, List<String> minions,
                        List<String> missing, OffsetDateTime createdAt, Map<String, Return> returns,
                        Map<String, AgentJobState> states, Map<AgentJobState, Integer> counts) {

    /** One minion's answer; null values inside {@code ret} are shown, as the minion returned them. */
    public record Return(@JsonInclude(content = JsonInclude.Include.ALWAYS) Object ret, int retcode, boolean success, OffsetDateTime at) {
    }
}
