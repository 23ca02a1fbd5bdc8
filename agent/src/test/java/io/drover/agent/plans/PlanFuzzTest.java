package io.drover.agent.plans;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.testing.ReferenceData;
import io.drover.model.plans.PlanJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100,000 generated and mutated plans (the reference plans and valid ones, with keys removed, values replaced by
 * hostile ones, text corrupted) through validation and the runner of one agent: nothing throws, and every plan gets
 * exactly one result with a code. Seeded, so a failure reproduces; Bodies that need python3 or a script are kept
 * rare so that the run stays short.
 */
class PlanFuzzTest {
    static final int PLANS = 100_000;
    static final long SEED = 0xD20FE5L;

    @TempDir
    Path root;
    final Random random = new Random(SEED);

    @Test
    void everyPlanGetsExactlyOneResultWithACode() throws Exception {
        PlanFixture agent = new PlanFixture(root, (fun, args) -> new SaltStackExecutor.Reply("ok", 0));
        List<Map<String, Object>> bases = bases();
        Map<Integer, Integer> codes = new TreeMap<>();
        for (int i = 0; i < PLANS; i++) {
            byte[] message = message(bases);
            PlanService.Answer answer = agent.service.execute(message, "fuzz-" + i, agent);
            Map<String, Object> document = answer.document();
            Integer code = document.get("ErrorCode") instanceof Integer c ? c
                    : document.containsKey("IsException") ? answer.result().errorCode() : null;
            assertThat(code).as("plan %d (seed %d): %s", i, SEED, new String(message, StandardCharsets.UTF_8)).isNotNull();
            codes.merge(code, 1, Integer::sum);
        }
        assertThat(codes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(PLANS);
        assertThat(codes.keySet()).as("the mutations reach many rules: " + codes).contains(0, 1, 2, 3, 5, 6, 7, 9);
        Map<String, Object> after = agent.run(Map.of("FormatVersion", "2.0.0", "ID", "after", "Body", "return 'still here'"), "m");
        assertThat(after.get("Body")).isEqualTo("still here");
    }

    List<Map<String, Object>> bases() throws Exception {
        List<Map<String, Object>> bases = new ArrayList<>();
        try (Stream<Path> files = Files.list(ReferenceData.dir("murano"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".plan.json")).sorted().toList()) {
                bases.add(copy(PlanJson.read(Files.readAllBytes(file))));
            }
        }
        bases.add(copy(PlanErrorCodesTest.plan("return s()", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f",
                "Options", Map.of("timeout", 5))), Map.of("f", Map.of("Name", "f.sh", "BodyType", "Text", "Body", "echo $1")))));
        bases.add(copy(PlanErrorCodesTest.plan("return salt.test_ping()", Map.of("salt", Map.of("Type", "SaltStack",
                "EntryPoint", "f")), Map.of("f", Map.of("Name", "s.yaml", "BodyType", "Text", "Body", "- fun: test.ping")))));
        return bases;
    }

    byte[] message(List<Map<String, Object>> bases) {
        Map<String, Object> plan = copy(bases.get(random.nextInt(bases.size())));
        plan.put("ID", "p" + random.nextLong());
        plan.remove("Stamp");
        plan.put("Body", body());
        int mutations = random.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            mutate(plan, 0);
        }
        byte[] text = PlanJson.write(plan).getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(10) == 0) {
            text = corrupt(text);
        }
        return text;
    }

    /** Mostly Bodies that need neither python3 nor a script; now and then one that needs either. */
    String body() {
        int roll = random.nextInt(1000);
        if (roll < 3) {
            return List.of("x = 1\nreturn x", "raise ValueError('no')", "return (", "import no_such", "api.setExitCode(3)\nreturn 1",
                    "missing()").get(random.nextInt(6));
        }
        if (roll < 6) {
            return List.of("return s()", "return s('a', args.x).stdout", "return salt.test_ping()", "return deploy(args.appName).stdout",
                    "return runCommand()").get(random.nextInt(5));
        }
        if (roll < 500) {
            return List.of("", "return", "return 1", "return args.name", "return args.missing", "return 'x'")
                    .get(random.nextInt(6));
        }
        return "";
    }

    void mutate(Map<String, Object> map, int depth) {
        // The Body is chosen by body(), not mutated: a mutated Body would start python3 for most plans.
        List<String> keys = new ArrayList<>(map.keySet());
        keys.remove("Body");
        int roll = random.nextInt(6);
        if (keys.isEmpty() || roll == 0) {
            map.put(pick(List.of("FormatVersion", "Scripts", "Files", "Parameters", "Timeout", "Options", "Type",
                    "EntryPoint", "BodyType", "Name", "URL", "Sha256", "Action", "Stamp", "Commands", "Service")), hostile(depth));
            return;
        }
        String key = pick(keys);
        Object value = map.get(key);
        switch (roll) {
            case 1 -> map.remove(key);
            case 2 -> map.put(key, hostile(depth));
            case 3 -> {
                if (value instanceof Map<?, ?> inner && depth < 4) {
                    Map<String, Object> changed = copy(inner);
                    mutate(changed, depth + 1);
                    map.put(key, changed);
                } else {
                    map.put(key, hostile(depth));
                }
            }
            case 4 -> map.put(key + pick(List.of("", "\u0000", "é", "\uD83D\uDE00", " ", "/../x")), map.remove(key));
            default -> map.put(key, value instanceof String s ? s + pick(List.of("\u0000", "::", "/../..", "\n", "2.3.0")) : value);
        }
    }

    Object hostile(int depth) {
        return switch (random.nextInt(12)) {
            case 0 -> null;
            case 1 -> random.nextLong();
            case 2 -> random.nextDouble() * 1e6;
            case 3 -> pick(List.of("2.0.0", "2.1.0", "2.2.0", "3.0.0", "1.0.0", "2.x", "", "0.9.0", "2.2.0-rc1", "9999999999.0.0"));
            case 4 -> pick(List.of("Application", "Bash", "Chef", "Puppet", "PowerShell", "SaltStack", "Python", "VBScript", "Text",
                    "Base64", "Downloadable", "URI", "ID", "cookbook::recipe", "f", "ID1", "scriptFile"));
            case 5 -> "x".repeat(random.nextInt(5000)) + "\u0000\uD800";
            case 6 -> List.of(hostileLeaf(), hostileLeaf());
            case 7 -> Map.of("Name", pick(List.of("a", "../a", "/etc/x", "a\u0000b")), "BodyType", pick(List.of("Text", "Base64", "ID")),
                    "Body", pick(List.of("aGk=", "***", "")));
            case 8 -> nested(random.nextInt(60));
            case 9 -> Map.of("s", Map.of("Type", pick(List.of("Bash", "Chef", "Nope")), "EntryPoint", pick(List.of("f", "a::b", "zz")),
                    "Options", depth > 2 ? Map.of() : Map.of(pick(List.of("timeout", "captureStdout", "useBerkshelf", "bogus")), hostileLeaf())));
            case 10 -> random.nextBoolean();
            default -> "ünï\u202Ecode\uFEFF";
        };
    }

    Object hostileLeaf() {
        return pick(List.<Object>of(1, -1, 0.5, "", "\u0000", true, List.of(), Map.of()));
    }

    Object nested(int depth) {
        Object value = "bottom";
        for (int i = 0; i < depth; i++) {
            value = random.nextBoolean() ? List.of(value) : Map.of("k", value);
        }
        return value;
    }

    byte[] corrupt(byte[] text) {
        byte[] copy = text.clone();
        int changes = 1 + random.nextInt(5);
        for (int i = 0; i < changes && copy.length > 0; i++) {
            copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
        }
        if (random.nextBoolean() && copy.length > 1) {
            byte[] cut = new byte[random.nextInt(copy.length)];
            System.arraycopy(copy, 0, cut, 0, cut.length);
            return cut;
        }
        return copy;
    }

    <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> copy(Object document) {
        return (Map<String, Object>) copyValue(document);
    }

    private static Object copyValue(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((k, v) -> copy.put(String.valueOf(k), copyValue(v)));
            return copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>();
            list.forEach(v -> copy.add(copyValue(v)));
            return copy;
        }
        return value;
    }
}
