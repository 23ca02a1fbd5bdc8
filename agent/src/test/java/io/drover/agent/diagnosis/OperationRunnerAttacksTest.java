package io.drover.agent.diagnosis;

import static io.drover.agent.diagnosis.ProcessorRunnerTest.script;
import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.agentapi.AgentResult.OperationOutcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An operation's script against the agent that runs it: what it leaves in its folder is read safely, and kept from other users. */
class ProcessorRunnerAttacksTest {
    @TempDir
    Path state;

    @Test
    void theWorkingFolderIsOwnerOnlyLikeTheDataFile() throws Exception {
        OperationOutcome outcome = new ProcessorRunner(state).run(script("stat -c %a . \"$DROVER_DATA\"", List.of(), "p",
                Map.of("secret", "s3cret"), 10));
        assertThat(outcome.results().get("operation.p.output").lines().toList()).as("the output and the script are in it too")
                .containsExactly("700", "600");
    }

    @Test
    void aScriptThatSwapsItsOutputForAFifoOrALinkIsAnsweredNotWaitedOnForever() throws Exception {
        ProcessorRunner runner = new ProcessorRunner(state);
        CompletableFuture<OperationOutcome> fifo = CompletableFuture.supplyAsync(() -> {
            try {
                return runner.run(script("rm .output; mkfifo .output", List.of(), "p", Map.of(), 10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        OperationOutcome outcome = fifo.get(30, TimeUnit.SECONDS);
        assertThat(outcome.succeeded()).isFalse();
        assertThat(outcome.error()).contains("not a regular file");

        OperationOutcome linked = runner.run(script("rm .output; ln -s /dev/zero .output", List.of(), "p", Map.of(), 10));
        assertThat(linked.succeeded()).isFalse();
        assertThat(linked.error()).contains("not a regular file");
        assertThat(runner.run(script("echo still here", List.of(), "p", Map.of(), 10)).results())
                .containsEntry("operation.p.output", "still here\n");
    }
}
