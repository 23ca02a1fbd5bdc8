package io.drover.agent.supervisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.Json;
import io.drover.model.agentapi.ProcessSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegistrationFileTest {
    private static final ProcessSpec FULL = new ProcessSpec("demo-exporter", "/usr/local/gse/plugins/bin",
            "/var/run/gse/demo \"exporter\".pid", "nobody", "./start.sh --name 'x\\y'\n\tnext", "./stop.sh",
            "./restart.sh", "./reload.sh", "./demo --version", "curl -sf http://127.0.0.1:9100/ ünïcode \u0001", true);
    private static final ProcessSpec SPARSE = new ProcessSpec("beat", "/opt/beat", "/opt/beat/pid", null,
            "./start.sh", null, null, null, null, null, false);

    @Test
    void writtenAndReadBackUnchanged() {
        for (ProcessSpec spec : List.of(FULL, SPARSE)) {
            for (boolean started : new boolean[] {true, false}) {
                Supervisor.Registration r = new Supervisor.Registration(spec, started);
                assertThat(RegistrationFile.read(new String(RegistrationFile.write(r), StandardCharsets.UTF_8))).isEqualTo(r);
            }
        }
    }

    @Test
    void readsWhatJacksonWroteAndJacksonReadsWhatItWrites() throws Exception {
        for (ProcessSpec spec : List.of(FULL, SPARSE)) {
            Supervisor.Registration r = new Supervisor.Registration(spec, true);
            String before = Json.json().writeValueAsString(r); // registrations of agents before this change
            assertThat(RegistrationFile.read(before)).isEqualTo(r);
            assertThat(Json.json().readValue(RegistrationFile.write(r), Supervisor.Registration.class)).isEqualTo(r);
            assertThat(Json.json().readTree(RegistrationFile.write(r))).isEqualTo(Json.json().readTree(before));
        }
        String pretty = """
                {
                  "spec" : { "name" : "a\\u00e9\\/b", "setup_path" : "/x", "user" : null, "delegate" : false },
                  "started" : false
                }
                """;
        assertThat(RegistrationFile.read(pretty)).isEqualTo(new Supervisor.Registration(
                new ProcessSpec("a\u00e9/b", "/x", null, null, null, null, null, null, null, null, false), false));
    }

    @Test
    void refusesWhatIsNotARegistration() {
        List<String> bad = List.of("", "{not json", "[]", "{}", "{\"spec\":{}} trailing", "{\"spec\":{},\"extra\":1}",
                "{\"spec\":{\"name\":1}}", "{\"spec\":{\"name\":\"a\",\"nickname\":\"b\"}}", "{\"spec\":{\"name\":{\"x\":\"y\"}}}",
                "{\"spec\":{\"delegate\":\"yes\"}}", "{\"spec\":{},\"started\":\"true\"}", "{\"spec\":{\"name\":\"a\\q\"}}",
                "{\"spec\":{\"name\":\"a\\u12\"}}", "{\"spec\":{\"name\":\"unterminated}}", "{\"spec\":{},\"spec\":{}}",
                "{\"spec\":{\"name\":\"tab\tinside\"}}", "{\"spec\":{}");
        for (String text : bad) {
            assertThatThrownBy(() -> RegistrationFile.read(text)).as(text).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
