package io.drover.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.drover.model.agentinstall.InstallStatus;
import io.drover.model.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.UpgradeHostState;
import io.drover.model.diagnosis.DiagnosisPhase;
import io.drover.model.keys.KeyState;
import io.drover.model.packages.AddonState;
import io.drover.model.packages.AddonStepAction;
import io.drover.model.plans.PlanStatus;
import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.CopyStatus;
import io.drover.model.subscriptions.InstanceState;
import io.drover.model.subscriptions.RunStatus;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The states are enums inside; on the wire each keeps the words the published API has always used. */
class StateWireNamesTest {

    @Test
    void eachStateIsWrittenWithThePublishedWords() {
        assertThat(written(PlanStatus.values())).containsExactly("RUNNING", "SUCCEEDED", "FAILED");
        assertThat(written(DiagnosisPhase.values())).containsExactly("Pending", "Running", "Succeeded", "Failed", "Cancelled");
        assertThat(written(RunStatus.values())).containsExactly("PENDING", "RUNNING", "SUCCESS", "FAILED", "SKIPPED", "REVOKED");
        assertThat(written(InstanceState.values())).containsExactly("PENDING", "RUNNING", "FAILED", "NOT_DEPLOYED", "STOPPED", "UNKNOWN");
        assertThat(written(CopyStatus.values())).containsExactly("RUNNING", "STOPPED", "UNKNOWN");
        assertThat(written(ChangeAction.values())).containsExactly("INSTALL", "UNINSTALL", "PUSH_CONFIG", "START", "STOP",
                "NOT_CHANGE", "SKIP", "FAIL");
        assertThat(written(InstallStatus.values())).containsExactly("pending", "running", "succeeded", "failed");
        assertThat(written(RolloutStatus.values())).containsExactly("running", "succeeded", "failed", "stopped", "cancelled");
        assertThat(written(UpgradeHostState.values())).containsExactly("pending", "skipped", "handed_over", "succeeded", "failed",
                "not_started");
        assertThat(written(KeyState.values())).containsExactly("accepted", "pending", "rejected", "denied");
        assertThat(written(AddonState.values())).containsExactly("enabled", "disabled");
        assertThat(written(AddonStepAction.values())).containsExactly("install", "upgrade", "reconfigure");
    }

    @Test
    void eachStateIsReadBackFromItsPublishedWord() throws JsonProcessingException {
        for (Class<? extends Enum<?>> type : List.of(PlanStatus.class, DiagnosisPhase.class, RunStatus.class, InstanceState.class,
                CopyStatus.class, ChangeAction.class, InstallStatus.class, RolloutStatus.class, UpgradeHostState.class,
                KeyState.class, AddonState.class, AddonStepAction.class)) {
            for (Enum<?> value : type.getEnumConstants()) {
                String json = Json.json().writeValueAsString(value);
                assertThat(Json.json().readValue(json, type)).as(json).isEqualTo(value);
            }
        }
    }

    @Test
    void aWordOfAnotherSpellingIsRefused() {
        assertThatThrownBy(() -> Json.json().readValue("\"SUCCEEDED\"", RunStatus.class))
                .isInstanceOf(ValueInstantiationException.class).hasMessageContaining("SUCCESS");
        assertThatThrownBy(() -> Json.json().readValue("\"SUCCEEDED\"", InstallStatus.class))
                .isInstanceOf(ValueInstantiationException.class).hasMessageContaining("succeeded");
        assertThatThrownBy(() -> Json.json().readValue("\"Done\"", DiagnosisPhase.class))
                .isInstanceOf(ValueInstantiationException.class).hasMessageContaining("Succeeded");
        assertThat(DiagnosisPhase.parse("running")).as("a query parameter may be in any case").isEqualTo(DiagnosisPhase.RUNNING);
    }

    private static List<String> written(Enum<?>[] values) {
        return Arrays.stream(values).map(v -> {
            try {
                return Json.json().readTree(Json.json().writeValueAsString(v)).asText();
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }
}
