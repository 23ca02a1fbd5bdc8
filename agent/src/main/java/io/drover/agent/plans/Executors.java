package io.drover.agent.plans;

import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The executors an agent has, by Type: Application (an executable with a command line), Bash, Python, SaltStack
 * (the agent's own functions) and, where their tools are installed, Chef, Puppet and PowerShell.
 */
final class Executors {
    private final Map<String, ScriptExecutor> byType = new LinkedHashMap<>();

    Executors(List<ScriptExecutor> executors) {
        executors.forEach(e -> byType.put(e.type(), e));
    }

    static Executors standard(SaltStackExecutor.AgentFunctions functions) {
        List<ScriptExecutor> all = new ArrayList<>();
        all.add(new ApplicationExecutor());
        all.add(InterpreterExecutor.bash());
        all.add(new PythonExecutor());
        all.add(InterpreterExecutor.powerShell());
        all.add(new SaltStackExecutor(functions));
        all.add(new RecipeExecutor.Chef());
        all.add(new RecipeExecutor.Puppet());
        return new Executors(all);
    }

    /** Every type known here (installed or not): a plan naming another one is refused as unsupported. */
    Set<String> types() {
        return new TreeSet<>(byType.keySet());
    }

    /** The executor for a type; code 3 when this host cannot run it. */
    ScriptExecutor get(String type) {
        ScriptExecutor executor = byType.get(type);
        if (executor == null) {
            throw new PlanException(PlanErrorCode.UNSUPPORTED_PLATFORM, "No executor for the deployment platform " + type);
        }
        String missing = executor.missing();
        if (missing != null) {
            throw new PlanException(PlanErrorCode.UNSUPPORTED_PLATFORM, missing);
        }
        return executor;
    }
}
