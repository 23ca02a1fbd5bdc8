package io.drover.core.diagnosis;

import java.util.List;
import java.util.Map;

/**
 * A KubeDiag Operation: a name and exactly one processor, with its timeout (seconds, default 30). An
 * {@code httpServer} without address is the host itself (127.0.0.1). {@code droverAction} is Drover's own processor:
 * an action the server takes on the host through its agent or its subscriptions (a plugin's status, restarting it,
 * re-running the subscriptions that deploy to the host).
 */
public record Operation(String name, HttpServer httpServer, ScriptRunner scriptRunner, Function function, DroverAction droverAction,
                        int timeoutSeconds) {
    /** The actions {@code droverAction} takes. */
    public enum Action { PLUGIN_STATUS, RESTART_PLUGIN, RERUN_SUBSCRIPTIONS }

    /** An action; {@code pluginKey} is the data key holding the plugin's process name (default {@code plugin}). */
    public record DroverAction(Action action, String pluginKey) {
    }

    public record HttpServer(String address, int port, String path, String scheme) {
    }

    public record ScriptRunner(String script, List<String> argKeys, String operationResultKey) {
        public ScriptRunner {
            argKeys = argKeys == null ? List.of() : List.copyOf(argKeys);
        }
    }

    public record Function(Map<String, String> codeSource, String runtime) {
        public Function {
            codeSource = Map.copyOf(codeSource);
        }
    }

    public String processor() {
        return httpServer != null ? "httpServer" : scriptRunner != null ? "scriptRunner" : function != null ? "function" : "droverAction";
    }
}
