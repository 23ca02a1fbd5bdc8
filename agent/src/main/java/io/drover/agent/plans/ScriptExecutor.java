package io.drover.agent.plans;

import java.util.List;
import java.util.Map;

/**
 * Runs the scripts of one deployment platform. {@code function} is null when the Body calls the script as a whole
 * ({@code deploy(x)}) and a name when it calls a function in it ({@code deploy.fn(x)}). An error is a
 * {@link io.drover.core.plans.PlanException} with its code.
 */
interface ScriptExecutor {
    /** The Type plans name this platform by. */
    String type();

    /** Null when this host can run the platform's scripts; otherwise what it lacks, in a sentence. */
    String missing();

    Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException;
}
