package io.drover.core.plans;

import java.util.List;
import java.util.Map;

/**
 * A script of a plan: the deployment platform ({@code type}) it is written for, the least version of it, its entry
 * point (a file id, or {@code cookbook::recipe} for Chef and Puppet), the ids of the other files it needs and the
 * options of its executor.
 */
public record PlanScript(String name, String type, String version, String entryPoint, List<String> files,
                         Map<String, Object> options) {
    public PlanScript {
        files = List.copyOf(files);
        options = Map.copyOf(options);
    }

    /** A boolean option, {@code fallback} when absent. */
    public boolean flag(String option, boolean fallback) {
        Object value = options.get(option);
        return value instanceof Boolean b ? b : fallback;
    }
}
