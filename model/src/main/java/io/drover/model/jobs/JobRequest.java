package io.drover.model.jobs;

import java.util.List;
import java.util.Map;

/** A remote execution request: target, function and arguments, as Salt's publish. */
public record JobRequest(String tgt, String tgtType, String fun, List<Object> arg, Map<String, Object> kwarg, Integer timeout) {
}
