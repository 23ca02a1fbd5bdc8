package io.drover.model.agentapi;

import java.util.List;
import java.util.Map;

/**
 * One diagnosis operation for an agent to run: its processor ({@code scriptRunner}, {@code function} or
 * {@code httpServer}) with what that processor needs, the data map (parameters, results so far, context keys) and
 * the timeout in seconds.
 */
public record OperationRequest(String operation, String processor, String script, List<String> argKeys, String resultKey,
                           Map<String, String> code, String runtime, String scheme, String address, Integer port, String path,
                           Map<String, String> data, int timeoutSeconds) {
    public static final String SCRIPT_RUNNER = "scriptRunner";
    public static final String FUNCTION = "function";
    public static final String HTTP_SERVER = "httpServer";

    public OperationRequest {
        argKeys = argKeys == null ? List.of() : List.copyOf(argKeys);
        code = code == null ? Map.of() : Map.copyOf(code);
        data = data == null ? Map.of() : Map.copyOf(data);
    }
}
