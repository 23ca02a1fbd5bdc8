package io.drover.agent.plans;

import java.util.ArrayList;
import java.util.List;

/**
 * Bash and PowerShell: the entry point is run by the platform's interpreter with the call's arguments; a function
 * call loads the file and calls the function in it with those arguments (Python: {@link PythonExecutor}).
 */
final class InterpreterExecutor extends ProcessExecutor {
    /** How one interpreter runs a whole file and a function in it. */
    private interface Commands {
        List<String> whole(String entry, List<String> args);

        List<String> function(String entry, String function, List<String> args);
    }

    private final Commands commands;

    private InterpreterExecutor(String type, String tool, Commands commands) {
        super(type, tool);
        this.commands = commands;
    }

    static InterpreterExecutor bash() {
        return new InterpreterExecutor("Bash", "bash", new Commands() {
            public List<String> whole(String entry, List<String> args) {
                return concat(List.of("bash", entry), args);
            }

            public List<String> function(String entry, String function, List<String> args) {
                return concat(List.of("bash", "-c", "script=\"$0\"; call=(\"$@\"); set --; source \"$script\"; \"${call[@]}\"",
                        entry, function), args);
            }
        });
    }

    static InterpreterExecutor powerShell() {
        return new InterpreterExecutor("PowerShell", "pwsh", new Commands() {
            public List<String> whole(String entry, List<String> args) {
                return concat(List.of("pwsh", "-NoProfile", "-NonInteractive", "-File", entry), args);
            }

            public List<String> function(String entry, String function, List<String> args) {
                StringBuilder command = new StringBuilder(". ").append(psQuote(entry)).append("; & ").append(psQuote(function));
                for (String arg : args) {
                    if (arg.startsWith("--") && arg.contains("=")) {
                        int eq = arg.indexOf('=');
                        command.append(" -").append(arg, 2, eq).append(' ').append(psQuote(arg.substring(eq + 1)));
                    } else {
                        command.append(' ').append(psQuote(arg));
                    }
                }
                return List.of("pwsh", "-NoProfile", "-NonInteractive", "-Command", command.toString());
            }
        });
    }

    @Override
    List<String> command(LoadedScript script, String function, List<String> args) {
        return function == null ? commands.whole(entry(script), args) : commands.function(entry(script), function, args);
    }

    private static List<String> concat(List<String> head, List<String> tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(tail);
        return all;
    }

    private static String psQuote(String word) {
        return "'" + word.replace("'", "''") + "'";
    }
}
