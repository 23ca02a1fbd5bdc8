package io.drover.agent.plans;

import io.drover.core.plans.LogMessage;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A plan service on a temporary root with the host's real python3 and shell; it records what plans tell it. */
final class PlanFixture implements PlanHooks {
    final Path root;
    final Path stateDir;
    final PlanService service;
    final List<LogMessage> logs = new CopyOnWriteArrayList<>();
    final List<Integer> restartable = new CopyOnWriteArrayList<>();

    PlanFixture(Path root) throws IOException {
        this(root, (fun, args) -> new SaltStackExecutor.Reply("no function " + fun + " here", 254));
    }

    PlanFixture(Path root, SaltStackExecutor.AgentFunctions functions) throws IOException {
        this.root = root;
        this.stateDir = root.resolve("var/lib/drover-agent");
        Files.createDirectories(stateDir);
        PlanSetup setup = new PlanSetup(root, stateDir, PlanService.installBootstrap(stateDir), PlanService.findPython(), "9.9.9",
                (path, sha) -> {
                    throw new IOException("no fileserver in this test");
                }, Clock.systemUTC(), Duration.ofSeconds(60));
        this.service = new PlanService(setup, functions);
    }

    /** Runs a plan given as a map; the result document. */
    Map<String, Object> run(Map<String, Object> plan, String messageId) {
        return service.execute(PlanJson.bytes(plan), messageId, this).document();
    }

    PlanService.Answer answer(String json, String messageId) {
        return service.execute(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), messageId, this);
    }

    @Override
    public void log(LogMessage message) {
        logs.add(message);
    }

    @Override
    public void restartable(int maxReboots) {
        restartable.add(maxReboots);
    }

    @Override
    public void rebootWaitOver() {
        restartable.add(-1);
    }
}
