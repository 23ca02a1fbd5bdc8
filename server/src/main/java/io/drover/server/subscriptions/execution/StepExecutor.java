package io.drover.server.subscriptions.execution;

import io.drover.core.subscriptions.ChangePlanner.StepAction;
import io.drover.core.subscriptions.ScopeInstance;
import io.drover.core.subscriptions.StepFiles;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.model.subscriptions.TaskInfo.StepRecord;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.subscriptions.planning.ChangePlanBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Turns one step of one instance into its pipeline of agent calls on every host the step concerns. */
final class StepExecutor {
    private final Pipelines pipelines;

    StepExecutor(Pipelines pipelines) {
        this.pipelines = pipelines;
    }

    /** Runs the step on each of its hosts in turn; the error of the first failed sub-step, or null. */
    String run(ChangePlanBuilder.Prepared p, String instanceId, StepAction step, StepJournal journal) {
        ScopeInstance instance = p.instances().get(instanceId);
        ChangePlanBuilder.StepPackage sp = p.packages().get(step.stepId());
        List<DeploymentStore.Row> existing = p.deployed().stream()
                .filter(r -> r.instanceId().equals(instanceId) && r.stepId().equals(step.stepId())).toList();
        List<Long> hosts = instance != null && step.action() != ChangeAction.UNINSTALL ? instance.targetHosts()
                : existing.stream().map(DeploymentStore.Row::hostId).distinct().toList();
        if (sp == null) {
            return "step " + step.stepId() + " is no longer in the subscription and its package is unknown; "
                    + "remove its files by hand";
        }
        Pipelines.Rendering rendering = instance == null ? null : rendering(p, instance);
        StepFiles files = instance == null || hosts.isEmpty() ? StepFiles.NONE : files(p, instance, step);
        for (long host : hosts) {
            String agent = p.agents().get(host);
            if (agent == null) {
                return "host " + host + " has no agent";
            }
            Optional<DeploymentStore.Row> copy = existing.stream().filter(r -> r.hostId() == host).findFirst();
            String groupId = instance != null ? instance.groupId() : copy.map(DeploymentStore.Row::groupId).orElseThrow();
            long biz = instance != null ? instance.host().bkBizId() : copy.map(DeploymentStore.Row::bizId).orElseThrow();
            Pipelines.CopyWork work = new Pipelines.CopyWork(p.subscription().id(), instanceId, groupId, host, biz, agent,
                    step.stepId(), sp.pkg(), step.action(), files, copy, rendering);
            if (!pipelines.run(work, journal)) {
                return failedSubStep(journal, step.stepId());
            }
        }
        return null;
    }

    /** The files the step pushes, rendered again (planning kept their md5s); only actions that push files render. */
    private static StepFiles files(ChangePlanBuilder.Prepared p, ScopeInstance instance, StepAction step) {
        return switch (step.action()) {
            case INSTALL, PUSH_CONFIG, START -> p.files().of(instance, step.stepId());
            default -> StepFiles.NONE;
        };
    }

    private static Pipelines.Rendering rendering(ChangePlanBuilder.Prepared p, ScopeInstance instance) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        p.deployed().stream().filter(r -> r.instanceId().equals(instance.instanceId()) && r.port() != null)
                .forEach(r -> ports.put(r.stepId(), r.port()));
        return new Pipelines.Rendering(instance, p.subscription().spec().scope(),
                p.packages().values().stream().map(ChangePlanBuilder.StepPackage::input).toList(),
                () -> p.packages().values().stream().map(ChangePlanBuilder.StepPackage::sentInput).toList(), ports);
    }

    private static String failedSubStep(StepJournal journal, String stepId) {
        for (StepRecord s : journal.steps()) {
            if (s.stepId().equals(stepId) && !s.subSteps().isEmpty()) {
                TaskInfo.SubStep last = s.subSteps().getLast();
                return "step " + stepId + ", " + last.name() + ": " + String.join(" ", last.log());
            }
        }
        return "step " + stepId + " failed";
    }
}
