package io.drover.core.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Every validation rule, one case each: a valid plan with one thing changed, and the code and message it gives. */
class PlanValidatorTest {
    static final PlanValidator VALIDATOR = PlanValidator.supporting(Set.of("Application", "Bash", "Chef", "SaltStack"));

    /** A valid 2.2.0 plan with a Bash script, a Chef script and one file of each kind. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> plan() {
        return Json.json().convertValue(Map.of(
                "FormatVersion", "2.2.0", "ID", "p1", "Action", "Execute", "Name", "demo", "Stamp", 5,
                "Parameters", Map.of("x", 1),
                "Body", "return run(args.x)",
                "Files", Map.of(
                        "f1", Map.of("Name", "run.sh", "BodyType", "Text", "Body", "echo hi"),
                        "f2", Map.of("Name", "lib/data.bin", "BodyType", "Base64", "Body", "aGk=\n"),
                        "f3", Map.of("Name", "pkg.tgz", "Type", "Downloadable", "URL", "https://example.org/pkg.tgz")),
                "Scripts", Map.of(
                        "run", Map.of("Type", "Bash", "EntryPoint", "f1", "Files", List.of("f2", "f3"),
                                "Options", Map.of("captureStdout", true, "timeout", 30)),
                        "cook", Map.of("Type", "Chef", "EntryPoint", "book::default",
                                "Options", Map.of("useBerkshelf", false, "berksfilePath", "book/Berksfile")))), LinkedHashMap.class);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> at(Map<String, Object> map, String... path) {
        Map<String, Object> current = map;
        for (String key : path) {
            current = (Map<String, Object>) current.get(key);
        }
        return current;
    }

    static Arguments refused(String rule, Consumer<Map<String, Object>> change, int code, String message) {
        return Arguments.of(rule, change, code, message);
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                refused("format version above 2.2.0", p -> p.put("FormatVersion", "2.3.0"), 9,
                        "Unsupported format version 2.3.0 (I support versions <=2.2.0)"),
                refused("format version 3", p -> p.put("FormatVersion", "3.0.0"), 9, "Unsupported format version 3.0.0"),
                refused("format version not semver", p -> p.put("FormatVersion", "2.x"), 2, "FormatVersion '2.x' is not a semantic version"),
                refused("format version not a string", p -> p.put("FormatVersion", 2), 2, "FormatVersion is not a string"),
                refused("another action", p -> p.put("Action", "Configure"), 2, "Action Configure is not supported"),
                refused("ID not a string", p -> p.put("ID", 7), 2, "ID is not a string"),
                refused("ID with a control character", p -> p.put("ID", "a\u0000b"), 2, "ID is over 4096 characters or holds control characters"),
                refused("Stamp not an integer", p -> p.put("Stamp", "x"), 2, "Stamp is not an integer"),
                refused("Parameters not a dictionary", p -> p.put("Parameters", List.of()), 2, "Parameters is not a dictionary"),
                refused("Body not a string", p -> p.put("Body", 1), 2, "Body is not a string"),
                refused("Body too long", p -> p.put("Body", "#".repeat(PlanValidator.MAX_BODY + 1)), 2, "Body is over"),
                refused("Scripts not a dictionary", p -> p.put("Scripts", List.of()), 2, "Scripts is not a dictionary"),
                refused("Files not a dictionary", p -> p.put("Files", "x"), 2, "Files is not a dictionary"),
                refused("Timeout not positive", p -> p.put("Timeout", 0), 2, "Timeout must be a number of seconds"),
                refused("script named args", p -> at(p, "Scripts").put("args", at(p, "Scripts", "run")), 2, "Script name args is reserved"),
                refused("script named api", p -> at(p, "Scripts").put("api", at(p, "Scripts", "run")), 2, "Script name api is reserved"),
                refused("script name not an identifier", p -> at(p, "Scripts").put("my-script", at(p, "Scripts", "run")), 2,
                        "Script name 'my-script' is not a Python identifier"),
                refused("script name a keyword", p -> at(p, "Scripts").put("return", at(p, "Scripts", "run")), 2, "is not a Python identifier"),
                refused("script not a dictionary", p -> at(p, "Scripts").put("run", "x"), 2, "Script run is not a dictionary"),
                refused("script without Type", p -> at(p, "Scripts", "run").remove("Type"), 2, "Incorrect Type entry in script run"),
                refused("script without EntryPoint", p -> at(p, "Scripts", "run").remove("EntryPoint"), 2, "Incorrect EntryPoint entry in script run"),
                refused("Options not a dictionary", p -> at(p, "Scripts", "run").put("Options", List.of()), 5, "Options of script run is not a dictionary"),
                refused("unknown option", p -> at(p, "Scripts", "run", "Options").put("colour", true), 5, "Script run has an unknown option 'colour'"),
                refused("capture option not boolean", p -> at(p, "Scripts", "run", "Options").put("captureStdout", "yes"), 5,
                        "Option captureStdout of script run must be true or false"),
                refused("script timeout negative", p -> at(p, "Scripts", "run", "Options").put("timeout", -1), 5, "Option timeout of script run"),
                refused("berkshelf before 2.2.0", p -> p.put("FormatVersion", "2.1.0"), 5, "invalid for version 2.1.0"),
                refused("berkshelf on another type", p -> at(p, "Scripts", "run", "Options").put("useBerkshelf", true), 5,
                        "Script has an option useBerkshelf invalid for type Bash"),
                refused("berksfilePath leaving the folder", p -> at(p, "Scripts", "cook", "Options").put("berksfilePath", "../x"), 5,
                        "Option berksfilePath of script cook has a wrong value"),
                refused("recipe without ::", p -> at(p, "Scripts", "cook").put("EntryPoint", "book/default"), 2,
                        "Wrong EntryPoint book/default for Puppet/Chef executors. :: needed"),
                refused("entry point not in Files", p -> at(p, "Scripts", "run").put("EntryPoint", "nope"), 7, "Script run misses entry point nope"),
                refused("script file not in Files", p -> at(p, "Scripts", "run").put("Files", List.of("f2", "gone")), 7, "Script run misses file gone"),
                refused("script Files not a list", p -> at(p, "Scripts", "run").put("Files", "f2"), 2, "Files of script run is not a list"),
                refused("script file entry neither id nor {name: url}", p -> at(p, "Scripts", "run").put("Files", List.of(5)), 2,
                        "Incorrect entry 5 in the Files of script run"),
                refused("Puppet with a file as entry point", p -> at(p, "Scripts", "run").put("Type", "Puppet"), 2, "Wrong EntryPoint f1 for Puppet/Chef"),
                refused("script Version above the executors'", p -> at(p, "Scripts", "run").put("Version", "1.1.0"), 3,
                        "Script run needs version 1.1.0 of the Bash platform; this agent's executors are version 1.0.0"),
                refused("script Version major above", p -> at(p, "Scripts", "run").put("Version", "2"), 3, "needs version 2 of the Bash"),
                refused("script Version not a version", p -> at(p, "Scripts", "run").put("Version", "latest"), 2,
                        "Version 'latest' of script run is not a version"),
                refused("script Version not a string", p -> at(p, "Scripts", "run").put("Version", 1), 2, "Incorrect Version entry in script run"),
                refused("unknown platform", p -> at(p, "Scripts", "run").put("Type", "VBScript"), 3,
                        "Script run cannot run here: there is no executor for the deployment platform VBScript"),
                refused("downloadable before 2.1.0", p -> {
                    p.put("FormatVersion", "2.0.0");
                    at(p, "Scripts").remove("cook");
                }, 2, "Download file is Type not valid for this version 2.0.0"),
                refused("downloadable of another type", p -> at(p, "Files", "f3").put("Type", "Git"), 2, "Incorrect Type entry in file f3"),
                refused("downloadable without URL", p -> at(p, "Files", "f3").remove("URL"), 2, "Incorrect URL entry in file f3"),
                refused("downloadable with a file URL", p -> at(p, "Files", "f3").put("URL", "file:///etc/shadow"), 2,
                        "only http://, https:// and salt://"),
                refused("fileserver file without sha256", p -> at(p, "Files", "f3").put("URL", "salt://pkg.tgz"), 2,
                        "comes from Drover's fileserver (salt://pkg.tgz) and needs its Sha256"),
                refused("sha256 not hex", p -> at(p, "Files", "f3").put("Sha256", "xyz"), 2, "Incorrect Sha256 entry in file f3"),
                refused("file not a dictionary", p -> at(p, "Files").put("f1", 3), 2, "Invalid file f1: 3"),
                refused("file with neither Type nor Body", p -> at(p, "Files").put("f1", Map.of("Name", "x")), 2, "Invalid file f1"),
                refused("file without BodyType", p -> at(p, "Files", "f1").remove("BodyType"), 2, "Incorrect BodyType entry in file f1"),
                refused("file without Body", p -> at(p, "Files", "f1").remove("Body"), 2, "Incorrect Body entry in file f1"),
                refused("file without Name", p -> at(p, "Files", "f1").remove("Name"), 2, "Incorrect Name entry in file f1"),
                refused("BodyType unknown", p -> at(p, "Files", "f1").put("BodyType", "ID"), 2, "Incorrect BodyType in file f1"),
                refused("Base64 that is not", p -> at(p, "Files", "f2").put("Body", "***"), 2, "Incorrect Body entry in file f2: not Base64"),
                refused("name with ..", p -> at(p, "Files", "f1").put("Name", "../../etc/passwd"), 2,
                        "is not a relative path inside the plan's working directory"),
                refused("absolute name", p -> at(p, "Files", "f1").put("Name", "/etc/passwd"), 2, "is not a relative path"),
                refused("name with NUL", p -> at(p, "Files", "f1").put("Name", "a\u0000b"), 2, "is not a relative path"),
                refused("not an object", p -> p.clear(), 0, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void eachRuleRefusesWithItsCode(String rule, Consumer<Map<String, Object>> change, int code, String message) {
        Map<String, Object> plan = plan();
        change.accept(plan);
        if (code == 0) {
            assertThatThrownBy(() -> VALIDATOR.validate(List.of(), null)).isInstanceOfSatisfying(PlanException.class,
                    e -> assertThat(e.code()).isEqualTo(2));
            return;
        }
        assertThatThrownBy(() -> VALIDATOR.validate(plan, "m1")).isInstanceOfSatisfying(PlanException.class, e -> {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @Test
    void theValidPlanIsReadWhole() {
        ExecutionPlan plan = VALIDATOR.validate(plan(), "m1");
        assertThat(plan.id()).isEqualTo("p1");
        assertThat(plan.stamp()).isEqualTo(5L);
        assertThat(plan.formatVersion()).isEqualTo("2.2.0");
        assertThat(plan.version()).isEqualTo("0.0.0");
        assertThat(plan.parameters()).containsEntry("x", 1);
        assertThat(plan.scripts().get("run").files()).containsExactly("f2", "f3");
        assertThat(plan.scripts().get("run").flag("captureStdout", false)).isTrue();
        assertThat(plan.scripts().get("run").flag("verifyExitcode", true)).isTrue();
        assertThat(plan.files().get("f3").kind()).isEqualTo(PlanFile.Kind.DOWNLOADABLE);
        assertThat(plan.files().get("f2").name()).isEqualTo("lib/data.bin");
        assertThat(plan.converted()).isFalse();
    }

    @Test
    void everythingIsOptional() {
        ExecutionPlan plan = VALIDATOR.validate(Map.of("FormatVersion", "2.0.0"), "m1");
        assertThat(plan.id()).as("the message id stands in for a missing ID").isEqualTo("m1");
        assertThat(plan.body()).isEmpty();
        assertThat(plan.scripts()).isEmpty();
        assertThat(plan.files()).isEmpty();
    }

    @Test
    void aScriptWithoutOptionsHasNone() {
        Map<String, Object> plan = plan();
        at(plan, "Scripts", "run").remove("Options");
        assertThat(VALIDATOR.validate(plan, null).scripts().get("run").options()).isEmpty();
    }

    @Test
    void engineStyleScriptFilesAreDownloads() {
        Map<String, Object> plan = plan();
        at(plan, "Scripts", "run").put("Files", List.of(Map.of("mysql", "https://git.example.org/mysql.git")));
        ExecutionPlan checked = VALIDATOR.validate(plan, null);
        PlanFile file = checked.files().get(checked.scripts().get("run").files().get(0));
        assertThat(file.kind()).isEqualTo(PlanFile.Kind.DOWNLOADABLE);
        assertThat(file.name()).isEqualTo("mysql");
        assertThat(file.url()).isEqualTo("https://git.example.org/mysql.git");
    }

    @Test
    void scriptVersionsUpToTheExecutorsAreAccepted() {
        for (String version : List.of("1.0.0", "1.0", "1", "0.9.1", "1.0.0-rc1", "1.0.0+build")) {
            Map<String, Object> plan = plan();
            at(plan, "Scripts", "run").put("Version", version);
            assertThat(VALIDATOR.validate(plan, "m1").scripts().get("run").version()).as(version).isEqualTo(version);
        }
    }

    @Test
    void aPlanWithoutFormatVersionIsVCurrentAndConverted() {
        ExecutionPlan plan = PlanValidator.supporting(Set.of("PowerShell")).validate(
                Map.of("Scripts", List.of("ZWNobyAx"), "Commands", List.of(Map.of("Name", "Go"))), "msg-9");
        assertThat(plan.converted()).isTrue();
        assertThat(plan.formatVersion()).isEqualTo("1.0.0");
        assertThat(plan.id()).isEqualTo("msg-9");
        assertThat(plan.scripts().get("ps").type()).isEqualTo("PowerShell");
    }

    @Test
    void aConvertedPlanNeedsPowerShell() {
        assertThatThrownBy(() -> VALIDATOR.validate(Map.of("Scripts", List.of(), "Commands", List.of()), "m"))
                .isInstanceOfSatisfying(PlanException.class, e -> {
                    assertThat(e.code()).isEqualTo(3);
                    assertThat(e.getMessage()).contains("PowerShell");
                });
    }
}
