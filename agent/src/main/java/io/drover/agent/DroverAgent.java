package io.drover.agent;

import io.drover.agent.functions.Functions;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.SaltMinion;
import io.drover.transport.minion.Targets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agent's assembly: keys in its state directory, the Salt minion transport, and the job functions. */
public final class DroverAgent implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DroverAgent.class);

    private final SaltMinion minion;
    private final Functions functions;

    private DroverAgent(MinionConfig config, Path root, String version) {
        Path stateDir = root.resolve("var/lib/drover-agent");
        AgentKeys keys = new AgentKeys(stateDir);
        this.functions = new Functions(Grains.collect(config.id()), version, root);
        this.minion = new SaltMinion(config, keys.loadOrCreate(), keys.pinnedMaster(), Targets.byId(config.id()),
                this::runJob, keys::pinMaster);
    }

    /** Starts the agent: it signs in (retrying until its key is accepted) and then runs the jobs that target it. */
    public static DroverAgent start(MinionConfig config, Path root, String version) {
        return new DroverAgent(config, root, version);
    }

    public SaltMinion.State state() {
        return minion.state();
    }

    private void runJob(SaltMinion source, Map<?, ?> load) {
        String fun = String.valueOf(load.get("fun"));
        List<?> args = load.get("arg") instanceof List<?> l ? l : List.of();
        Functions.Result result = functions.call(fun, args);
        Map<String, Object> ret = new LinkedHashMap<>();
        ret.put("jid", load.get("jid"));
        ret.put("fun", fun);
        ret.put("fun_args", args);
        ret.put("return", result.value());
        ret.put("retcode", result.retcode());
        ret.put("success", result.retcode() == 0);
        if (!source.sendReturn(ret)) {
            log.warn("{}: the return of job {} was not acknowledged", source.id(), load.get("jid"));
        }
    }

    @Override
    public void close() {
        minion.close();
    }
}
