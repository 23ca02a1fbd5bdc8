package io.drover.agent.plans;

import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.model.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Chef and Puppet, as the reference agent runs them: the entry point is {@code module::recipe}, the call's keywords
 * are the recipe's attributes, and the script's folder is the cookbook/module path. Lines of stdout that contain
 * ERROR are added to stderr.
 */
abstract class RecipeExecutor extends ProcessExecutor {
    RecipeExecutor(String type, String tool) {
        super(type, tool);
    }

    @Override
    public Object run(PlanContext plan, LoadedScript script, String function, List<Object> args, Map<String, Object> kwargs)
            throws InterruptedException {
        String[] recipe = script.script().entryPoint().split("::", 2);
        try {
            List<String> command = prepare(script, recipe[0], recipe[1], kwargs);
            @SuppressWarnings("unchecked")
            Map<String, Object> result = (Map<String, Object>) finish(plan, script, function, command, null);
            if (result.get("stdout") instanceof String out) {
                String errors = String.join("\n", out.lines().filter(l -> l.contains("ERROR")).toList());
                if (!errors.isEmpty()) {
                    result.put("stderr", result.get("stderr") == null ? errors : result.get("stderr") + "\n" + errors);
                }
            }
            return result;
        } catch (IOException e) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("exitCode", 2);
            info.put("stdout", null);
            info.put("stderr", e.getMessage());
            throw new PlanException(PlanErrorCode.USER_BASE, "Script " + script.script().name() + " could not be prepared", info);
        }
    }

    @Override
    List<String> command(LoadedScript script, String function, List<String> args) {
        throw new UnsupportedOperationException("recipes build their command in run");
    }

    abstract List<String> prepare(LoadedScript script, String module, String recipe, Map<String, Object> attributes)
            throws IOException, InterruptedException;

    static final class Chef extends RecipeExecutor {
        Chef() {
            super("Chef", "chef-solo");
        }

        @Override
        List<String> prepare(LoadedScript script, String cookbook, String recipe, Map<String, Object> attributes)
                throws IOException {
            Path folder = script.folder().toAbsolutePath();
            Files.writeString(folder.resolve("solo.rb"), "cookbook_path \"" + folder + "\"\n");
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("run_list", List.of("recipe[" + cookbook + "::" + recipe + "]"));
            node.put(cookbook, attributes);
            Files.writeString(folder.resolve("node.json"), io.drover.model.plans.PlanJson.write(node));
            return List.of("chef-solo", "-j", folder.resolve("node.json").toString(), "-c", folder.resolve("solo.rb").toString());
        }
    }

    static final class Puppet extends RecipeExecutor {
        Puppet() {
            super("Puppet", "puppet");
        }

        @Override
        List<String> prepare(LoadedScript script, String module, String recipe, Map<String, Object> attributes)
                throws IOException {
            Path folder = script.folder().toAbsolutePath();
            Files.writeString(folder.resolve("manifest.pp"), "node 'default' { class { " + module + "::" + recipe + ":}}\n");
            Files.writeString(folder.resolve("hiera.yaml"), "---\nversion: 5\ndefaults:\n  datadir: " + folder
                    + "\n  data_hash: yaml_data\nhierarchy:\n  - name: default\n    path: default.yaml\n");
            Map<String, Object> data = new LinkedHashMap<>();
            attributes.forEach((k, v) -> data.put(module + "::" + k, v));
            Files.writeString(folder.resolve("default.yaml"), Json.yaml().writeValueAsString(data));
            return List.of("puppet", "apply", "--hiera_config=" + folder.resolve("hiera.yaml"), "--modulepath", folder.toString(),
                    folder.resolve("manifest.pp").toString());
        }
    }
}
