package io.drover.model.jobs;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/** A job with the minions it expects and the returns stored so far. */
public record JobResult(String jid, String fun, List<Object> arg, String tgt, String tgtType, List<String> minions,
                        List<String> missing, OffsetDateTime createdAt, Map<String, Return> returns) {

    /** One minion's answer. */
    public record Return(Object ret, int retcode, boolean success, OffsetDateTime at) {
    }
}
