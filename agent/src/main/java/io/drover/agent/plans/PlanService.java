package io.drover.agent.plans;

import io.drover.core.plans.ExecutionPlan;
import io.drover.core.plans.ExecutionResult;
import io.drover.core.plans.PlanException;
import io.drover.core.plans.PlanValidator;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.Map;

/**
 * Execution plans on an agent, for every channel: a message in (JSON text and the channel's message id), the
 * result document out, in vNext form or, for a plan that arrived as vCurrent, converted back. Never throws for a
 * bad plan: every message gets exactly one result.
 */
public final class PlanService {
    private final Executors executors;
    private final PlanValidator validator;
    private final PlanRunner runner;
    private final Clock clock;

    public PlanService(PlanSetup setup, SaltStackExecutor.AgentFunctions functions) {
        this.executors = Executors.standard(functions);
        this.validator = new PlanValidator(type -> {
            try {
                executors.get(type);
                return null;
            } catch (PlanException e) {
                return e.getMessage();
            }
        });
        this.runner = new PlanRunner(setup, executors);
        this.clock = setup.clock();
    }

    /** What to send back, and whether the plan asked for a reboot once its result is safely stored. */
    public record Answer(String sourceId, Map<String, Object> document, ExecutionResult result, boolean reboot) {
    }

    /** Checks a plan without running it: the plan, or the error result to send. */
    public ExecutionPlan validate(Object document, String messageId) {
        return validator.validate(document, messageId);
    }

    public Answer execute(byte[] message, String messageId, PlanHooks hooks) {
        Object document;
        try {
            document = PlanJson.read(message);
        } catch (IOException e) {
            return error(messageId, false, new PlanException(io.drover.core.plans.PlanErrorCode.BAD_FORMAT,
                    "The execution plan is not JSON: " + firstLine(e.getMessage())));
        }
        boolean vCurrent = document instanceof Map<?, ?> map && isVCurrent(map);
        ExecutionPlan plan;
        try {
            plan = validator.validate(document, messageId);
        } catch (PlanException e) {
            String sourceId = document instanceof Map<?, ?> map && map.get("ID") instanceof String id && !vCurrent ? id : messageId;
            return error(sourceId, vCurrent, e);
        }
        PlanRunner.Outcome outcome = runner.run(plan, hooks);
        ExecutionResult result = outcome.result();
        return new Answer(plan.id(), plan.converted() ? result.toVCurrent() : result.toWire(), result, outcome.reboot());
    }

    private Answer error(String sourceId, boolean vCurrent, PlanException e) {
        ExecutionResult result = ExecutionResult.failure(PlanRunner.newId(), sourceId, e, clock.instant());
        return new Answer(sourceId, vCurrent ? result.toVCurrent() : result.toWire(), result, false);
    }

    /** A plan without FormatVersion or below 2.0.0 (as far as that can be told before validating it). */
    private static boolean isVCurrent(Map<?, ?> plan) {
        Object version = plan.get("FormatVersion");
        return version == null || version instanceof String v && v.matches("[01]\\..*");
    }

    /** Writes the bootstrap shipped in the agent jar under the state directory, where python3 can run it. */
    public static Path installBootstrap(Path stateDir) throws IOException {
        Path target = stateDir.resolve("plans/bootstrap.py");
        Files.createDirectories(target.getParent());
        try (InputStream in = PlanService.class.getResourceAsStream("bootstrap.py")) {
            if (in == null) {
                throw new IOException("bootstrap.py is missing from the agent's jar");
            }
            Path temp = target.resolveSibling("bootstrap.py.tmp");
            Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return target;
    }

    /** The host's python3, or null. */
    public static String findPython() {
        Path python = ProcessGroups.findOnPath("python3");
        return python == null ? null : python.toString();
    }

    private static String firstLine(String text) {
        return text == null ? "" : text.lines().findFirst().orElse("");
    }
}
