package io.drover.core.plans;

import static io.drover.core.plans.PlanValidator.bad;
import static io.drover.core.plans.PlanValidator.brief;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The specification's conversion of a vCurrent (1.0.0, PowerShell) plan into a vNext one: FormatVersion 2.0.0,
 * Action execute, ID = the message id, Name Auto-converted; every command argument becomes the parameter
 * {@code <command>_<argument>} (with {@code #2}, {@code #3}… when a command given again would reuse a key); every script becomes a Base64 file {@code script<index>.ps1} (index from 0); a Text
 * entry point dot-sources them; one script {@code ps} of type PowerShell holds them all; the Body calls
 * {@code ps.<command>(<argument>=args['<command>_<argument>'], …)} for each command in order inside a try block,
 * and RebootOnCompletion becomes {@code api.reboot()} (1: when no command failed, 2: always).
 * Command and argument names that are not Python identifiers are passed with {@code getattr} and {@code **{…}}.
 */
public final class VCurrentConverter {
    public static final String SCRIPT = "ps";
    public static final String ENTRY_POINT = "entryPoint";
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private VCurrentConverter() {
    }

    public static Map<String, Object> toVNext(Map<?, ?> plan, String messageId) {
        List<String> scripts = scripts(plan.get("Scripts"));
        List<Map<?, ?>> commands = commands(plan.get("Commands"));
        int reboot = reboot(plan.get("RebootOnCompletion"));

        Map<String, Object> parameters = new LinkedHashMap<>();
        StringBuilder calls = new StringBuilder();
        for (Map<?, ?> command : commands) {
            String function = (String) command.get("Name");
            List<String> arguments = new ArrayList<>();
            Map<?, ?> given = command.get("Arguments") instanceof Map<?, ?> m ? m : Map.of();
            for (Map.Entry<?, ?> argument : given.entrySet()) {
                String name = String.valueOf(argument.getKey());
                String key = unused(parameters, function + "_" + name);
                parameters.put(key, argument.getValue());
                arguments.add(IDENTIFIER.matcher(name).matches() ? name + "=args[" + literal(key) + "]"
                        : "**{" + literal(name) + ": args[" + literal(key) + "]}");
            }
            String callee = IDENTIFIER.matcher(function).matches() ? SCRIPT + "." + function
                    : "getattr(" + SCRIPT + ", " + literal(function) + ")";
            calls.append("    results.append(").append(callee).append("(").append(String.join(", ", arguments)).append("))\n");
        }

        Map<String, Object> files = new LinkedHashMap<>();
        List<String> fileIds = new ArrayList<>();
        StringBuilder entry = new StringBuilder();
        for (int i = 0; i < scripts.size(); i++) {
            String id = "script" + i;
            Map<String, Object> file = new LinkedHashMap<>();
            file.put("Name", id + ".ps1");
            file.put("BodyType", "Base64");
            file.put("Body", scripts.get(i));
            files.put(id, file);
            fileIds.add(id);
            entry.append(". \"$PSScriptRoot/").append(id).append(".ps1\"\n");
        }
        Map<String, Object> entryFile = new LinkedHashMap<>();
        entryFile.put("Name", "entryPoint.ps1");
        entryFile.put("BodyType", "Text");
        entryFile.put("Body", entry.toString());
        files.put(ENTRY_POINT, entryFile);

        StringBuilder body = new StringBuilder("results = []\ntry:\n").append(calls);
        if (commands.isEmpty()) {
            body.append("    pass\n");
        }
        if (reboot == 1) {
            body.append("    api.reboot()\n");
        }
        body.append("except Exception as e:\n    api.logError(e)\n    raise\n");
        if (reboot == 2) {
            body.append("finally:\n    api.reboot()\n");
        }
        body.append("return results\n");

        Map<String, Object> script = new LinkedHashMap<>();
        script.put("Type", "PowerShell");
        script.put("EntryPoint", ENTRY_POINT);
        script.put("Files", fileIds);
        script.put("Options", Map.of());

        Map<String, Object> converted = new LinkedHashMap<>();
        converted.put("FormatVersion", "2.0.0");
        converted.put("Action", "execute");
        if (messageId != null) {
            converted.put("ID", messageId);
        }
        converted.put("Name", "Auto-converted");
        if (plan.get("Stamp") != null) {
            converted.put("Stamp", plan.get("Stamp"));
        }
        converted.put("Parameters", parameters);
        converted.put("Body", body.toString());
        converted.put("Files", files);
        converted.put("Scripts", Map.of(SCRIPT, script));
        return converted;
    }

    /**
     * The seed's key, or, when an earlier argument took it (the same command given twice, or {@code a}'s {@code b_c}
     * and {@code a_b}'s {@code c}), the key with {@code #2}, {@code #3}… so that each call keeps its own arguments.
     */
    private static String unused(Map<String, Object> parameters, String key) {
        String candidate = key;
        for (int n = 2; parameters.containsKey(candidate); n++) {
            candidate = key + "#" + n;
        }
        return candidate;
    }

    private static List<String> scripts(Object value) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw bad("Scripts of a vCurrent plan is not a list");
        }
        List<String> scripts = new ArrayList<>();
        for (Object script : list) {
            if (!(script instanceof String text)) {
                throw bad("A script of a vCurrent plan is not a Base64 string: " + brief(script));
            }
            try {
                PlanFile.decodeBase64(text);
            } catch (IllegalArgumentException e) {
                throw bad("Script " + scripts.size() + " of a vCurrent plan is not Base64 (" + e.getMessage() + ")");
            }
            scripts.add(text);
        }
        return scripts;
    }

    private static List<Map<?, ?>> commands(Object value) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw bad("Commands of a vCurrent plan is not a list");
        }
        List<Map<?, ?>> commands = new ArrayList<>();
        for (Object command : list) {
            if (!(command instanceof Map<?, ?> map) || !(map.get("Name") instanceof String name) || name.isBlank()
                    || name.chars().anyMatch(c -> c < 0x20)) {
                throw bad("Command " + commands.size() + " of a vCurrent plan has no Name: " + brief(command));
            }
            if (map.get("Arguments") != null && !(map.get("Arguments") instanceof Map<?, ?>)) {
                throw bad("Arguments of command " + name + " is not a dictionary");
            }
            commands.add(map);
        }
        return commands;
    }

    private static int reboot(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (value instanceof Integer i && i >= 0 && i <= 2) {
            return i;
        }
        throw bad("RebootOnCompletion is " + brief(value) + ", not 0, 1 or 2");
    }

    /** A Python string literal. */
    static String literal(String text) {
        StringBuilder out = new StringBuilder("'");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\'' -> out.append("\\'");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('\'').toString();
    }
}
