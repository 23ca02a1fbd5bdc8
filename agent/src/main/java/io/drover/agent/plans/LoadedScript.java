package io.drover.agent.plans;

import io.drover.core.plans.PlanScript;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A script made ready once per plan: its folder holds the entry point and its files (links to the plan's copies);
 * {@code entryPoint} is null for Chef and Puppet, whose entry point is a recipe.
 */
record LoadedScript(PlanScript script, Path folder, Path entryPoint, String entryName) {
    /** The script's {@code timeout} option, or null. */
    Duration timeout() {
        return script.options().get("timeout") instanceof Number n ? Duration.ofMillis((long) (n.doubleValue() * 1000)) : null;
    }
}
