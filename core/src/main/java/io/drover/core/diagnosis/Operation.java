package io.drover.core.diagnosis;

import java.util.List;
import java.util.Map;

/**
 * A KubeDiag Operation: a name and exactly one processor, with its timeout (seconds, default 30). An
 * {@code httpServer} without address is the host itself (127.0.0.1).
 */
public record Operation(String name, HttpServer httpServer, ScriptRunner scriptRunner, Function function, int timeoutSeconds) {
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
        return httpServer != null ? "httpServer" : scriptRunner != null ? "scriptRunner" : "function";
    }
}
