package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.jobs.JobRequest;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobStarted;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code drover run TARGET FUN [ARG...]}: Salt-style remote execution. Prints each return as it arrives, stops when
 * every targeted agent answered or the timeout passed, then names the silent ones and exits non-zero.
 */
@Command(name = "run", description = "Run a function on the agents a target names, e.g. drover run '*' test.ping")
public final class RunCommand implements Callable<Integer> {
    @Mixin ClientOptions client;
    @Parameters(index = "0", paramLabel = "TARGET") String target;
    @Parameters(index = "1", paramLabel = "FUN") String fun;
    @Parameters(index = "2..*", paramLabel = "ARG") List<String> args = List.of();

    @ArgGroup(exclusive = true)
    TargetType type = new TargetType();

    static final class TargetType {
        @Option(names = "-E", description = "TARGET is a regular expression on ids.") boolean pcre;
        @Option(names = "-L", description = "TARGET is a comma-separated list of ids.") boolean list;
        @Option(names = "-G", description = "TARGET is a grain match, key:glob (e.g. os:Debian, roles:web*).") boolean grain;
        @Option(names = "-P", description = "TARGET is a grain regular expression, key:regex.") boolean grainPcre;
        @Option(names = "-S", description = "TARGET is an IPv4 address or CIDR network.") boolean ipcidr;
        @Option(names = "-C", description = "TARGET is compound: G@ P@ E@ L@ S@ N@ words and id globs with and/or/not and parentheses.") boolean compound;
        @Option(names = "-N", description = "TARGET is a nodegroup defined in the server's nodegroups setting.") boolean nodegroup;

        String type() {
            return pcre ? "pcre" : list ? "list" : grain ? "grain" : grainPcre ? "grain_pcre" : ipcidr ? "ipcidr"
                    : compound ? "compound" : nodegroup ? "nodegroup" : "glob";
        }
    }

    @Option(names = "--timeout", description = "Seconds to wait for returns (default 10).") int timeout = 10;

    @Override
    public Integer call() {
        // As salt's CLI: key=value arguments are keyword arguments, the rest positional.
        Map<String, Object> kwarg = new LinkedHashMap<>();
        List<Object> positional = new java.util.ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq > 0 && a.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_]*")) {
                kwarg.put(a.substring(0, eq), a.substring(eq + 1));
            } else {
                positional.add(a);
            }
        }
        JobStarted started = client.client().post("/api/v1/jobs",
                new JobRequest(target, type.type(), fun, positional, kwarg, timeout), JobStarted.class);
        String jid = started.jid();
        Set<String> printed = new HashSet<>();
        long deadline = System.nanoTime() + timeout * 1_000_000_000L;
        JobResult job;
        while (true) {
            // Waits on the server up to a second per request: returns print as they come, and the command ends
            // as soon as the last one is stored.
            job = client.client().get("/api/v1/jobs/" + jid + "?wait=1", JobResult.class);
            returns(job).forEach((id, ret) -> {
                if (printed.add(id)) {
                    print(id, ret);
                }
            });
            if (noneMissing(job.missing()) || System.nanoTime() > deadline) {
                break;
            }
        }
        if (!noneMissing(job.missing())) {
            client.spec.commandLine().getErr().println("error: no return within " + timeout + " s from "
                    + String.join(", ", job.missing()) + " (job " + jid + ")");
            return 1;
        }
        boolean failed = false;
        if (!noneMissing(started.missing())) {
            client.spec.commandLine().getErr().println("error: not accepted agents, not targeted: "
                    + String.join(", ", started.missing()));
            failed = true;
        }
        for (JobResult.Return r : returns(job).values()) {
            failed |= r.retcode() != 0;
        }
        return failed ? 1 : 0;
    }

    /** Whether no agent is missing (the list is absent or empty). */
    private static boolean noneMissing(List<String> missing) {
        return missing == null || missing.isEmpty();
    }

    private static Map<String, JobResult.Return> returns(JobResult job) {
        return job.returns() == null ? Map.of() : job.returns();
    }

    private void print(String id, JobResult.Return ret) {
        switch (client.output().format()) {
            case json -> client.out().println("{\"" + id + "\": " + Output.oneLine(ret.ret()) + "}");
            case yaml, table -> {
                JsonNode value = Output.tree(ret.ret());
                String text = value.isValueNode() ? value.asText() : Output.yaml(value).stripTrailing();
                client.out().println(id + ":");
                text.lines().forEach(line -> client.out().println("    " + line));
            }
        }
        client.out().flush();
    }
}
