package io.drover.model.agentapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.model.agentapi.AgentCall.AgentVersion;
import io.drover.model.agentapi.AgentCall.Echo;
import io.drover.model.agentapi.AgentCall.FetchFile;
import io.drover.model.agentapi.AgentCall.FindJob;
import io.drover.model.agentapi.AgentCall.GetGrains;
import io.drover.model.agentapi.AgentCall.InstallPackage;
import io.drover.model.agentapi.AgentCall.OperateProcess;
import io.drover.model.agentapi.AgentCall.Ping;
import io.drover.model.agentapi.AgentCall.QueryPackage;
import io.drover.model.agentapi.AgentCall.RegisterProcess;
import io.drover.model.agentapi.AgentCall.RemoveFile;
import io.drover.model.agentapi.AgentCall.RemovePlugin;
import io.drover.model.agentapi.AgentCall.RunCommand;
import io.drover.model.agentapi.AgentCall.RunScript;
import io.drover.model.agentapi.AgentCall.UnregisterProcess;
import io.drover.model.agentapi.AgentCall.UsedPorts;
import io.drover.model.agentapi.AgentCall.WriteFile;
import io.drover.model.agentapi.AgentResult.CommandOutput;
import io.drover.model.agentapi.AgentResult.FileWritten;
import io.drover.model.agentapi.AgentResult.Pong;
import io.drover.model.agentapi.AgentResult.Ports;
import io.drover.model.agentapi.AgentResult.ProcessState;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every agent call against the exact Salt wire form it had before the typed contract (what agents of earlier
 * versions and real salt-minions receive), decoded back to itself; results both ways; bad shapes named.
 */
class AgentCallCodecTest {
    static final String SHA = "a".repeat(64);
    static final ProcessSpec SPEC = new ProcessSpec("demo_sub_1", "/usr/local/gse/external_plugins/sub_1/demo",
            "/usr/local/gse/external_plugins/sub_1/demo/demo.pid", null, "./bin/start.sh", "./bin/stop.sh", null,
            "./bin/reload.sh", "echo 1.0", null, true);

    record Golden(AgentCall<?> call, String fun, List<Object> wireArgs) {
    }

    static Map<String, Object> kwargs(Object... kv) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            map.put((String) kv[i], kv[i + 1]);
        }
        map.put("__kwarg__", true);
        return map;
    }

    static final List<Golden> GOLDEN = List.of(
            new Golden(new Ping(), "test.ping", List.of()),
            new Golden(new Echo("hello"), "test.echo", List.of("hello")),
            new Golden(new AgentVersion(), "test.version", List.of()),
            new Golden(new GetGrains(List.of()), "grains.items", List.of()),
            new Golden(new GetGrains(List.of("os", "ipv4")), "grains.item", List.of("os", "ipv4")),
            new Golden(new FindJob("20261125012345123456"), "saltutil.find_job", List.of("20261125012345123456")),
            new Golden(new AgentCall.KillJob("20261125012345123456"), "saltutil.kill_job", List.of("20261125012345123456")),
            new Golden(new RunCommand("uptime"), "cmd.run", List.of("uptime")),
            new Golden(new RunScript("echo hi", null, List.of()), "cmd.script", List.of("echo hi")),
            new Golden(new RunScript("scripts/x.sh", SHA, List.of("-v", "2")), "cmd.script",
                    List.of("scripts/x.sh", List.of("-v", "2"), kwargs("sha256", SHA))),
            new Golden(new WriteFile("/etc/x.conf", "a: 1\n", "0644"), "file.write", List.of("/etc/x.conf", "a: 1\n", "0644")),
            new Golden(new WriteFile("/etc/x.conf", "a: 1\n", null), "file.write", List.of("/etc/x.conf", "a: 1\n")),
            new Golden(new FetchFile("tmp/nodeman_upload/demo-1.0.0.tgz", "packages/demo/demo-1.0.0.tgz", SHA, null),
                    "file.write", List.of("tmp/nodeman_upload/demo-1.0.0.tgz",
                            kwargs("source", "packages/demo/demo-1.0.0.tgz", "sha256", SHA))),
            new Golden(new RemoveFile("/etc/x.conf"), "file.remove", List.of("/etc/x.conf")),
            new Golden(new UsedPorts(), "sys.used_ports", List.of()),
            new Golden(new InstallPackage("packages/demo/demo-1.0.0.tgz", SHA, "usr/local/gse/plugins/bin/demo"),
                    "plugin.install_package", List.of("packages/demo/demo-1.0.0.tgz", SHA, "usr/local/gse/plugins/bin/demo")),
            new Golden(new QueryPackage("usr/local/gse/plugins/bin/demo"), "plugin.installed", List.of("usr/local/gse/plugins/bin/demo")),
            new Golden(new AgentCall.UpgradeAgent("agent-packages/drover-agent-0.2.0-linux-x86_64.tar.gz", SHA, "0.2.0", 300),
                    "agent.upgrade", List.of("agent-packages/drover-agent-0.2.0-linux-x86_64.tar.gz", SHA, "0.2.0", 300)),
            new Golden(new RemovePlugin("usr/local/gse/external_plugins/sub_1/demo"), "plugin.remove",
                    List.of("usr/local/gse/external_plugins/sub_1/demo")),
            new Golden(new RegisterProcess(SPEC), "proc.register", List.of("demo_sub_1", kwargs(
                    "setup_path", SPEC.setupPath(), "pid_path", SPEC.pidPath(), "start_cmd", "./bin/start.sh",
                    "stop_cmd", "./bin/stop.sh", "reload_cmd", "./bin/reload.sh", "version_cmd", "echo 1.0", "delegate", "true"))),
            new Golden(new UnregisterProcess("demo_sub_1"), "proc.unregister", List.of("demo_sub_1")),
            new Golden(new OperateProcess("demo_sub_1", ProcessOp.RELOAD), "proc.operate", List.of("demo_sub_1", "RELOAD")),
            new Golden(new AgentCall.RunPlan("{\"Body\":\"return 1\"}"), "plan.execute", List.of("{\"Body\":\"return 1\"}")),
            new Golden(new AgentCall.RunOperation(new OperationRequest("du", OperationRequest.SCRIPT_RUNNER, "du -sh $1", List.of("dir"), "du",
                    null, null, null, null, null, null, Map.of("dir", "/var"), 30)), "diag.operation", List.of(
                    "{\"operation\":\"du\",\"processor\":\"scriptRunner\",\"script\":\"du -sh $1\",\"arg_keys\":[\"dir\"],"
                    + "\"result_key\":\"du\",\"code\":{},\"data\":{\"dir\":\"/var\"},\"timeout_seconds\":30}")));

    @Test
    void everyCallHasItsSaltWireFormAndDecodesBackToItself() {
        for (Golden g : GOLDEN) {
            AgentCallCodec.WireCall wire = AgentCallCodec.encode(g.call());
            assertThat(wire.fun()).as("%s", g.call()).isEqualTo(g.fun());
            assertThat(wire.args().toList()).as("%s", g.call()).isEqualTo(g.wireArgs());
            assertThat(AgentCallCodec.decode(g.fun(), g.wireArgs())).isEqualTo(g.call());
        }
    }

    @Test
    void theGoldenCasesCoverEveryCall() {
        Set<Class<?>> covered = GOLDEN.stream().map(g -> g.call().getClass()).collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(Arrays.asList(AgentCall.class.getPermittedSubclasses()));
    }

    @Test
    void eachCallIsDecodedIntoTheResultTypeItDeclares() {
        for (Golden g : GOLDEN) {
            java.lang.reflect.ParameterizedType declared =
                    (java.lang.reflect.ParameterizedType) g.call().getClass().getGenericInterfaces()[0];
            assertThat(AgentCallCodec.resultType(g.call())).as("%s", g.call()).isEqualTo(declared.getActualTypeArguments()[0]);
        }
    }

    @Test
    void keywordsWinOverPositionsAndMalformedArgumentsAreNamed() {
        assertThat(AgentCallCodec.decode("cmd.run", List.of(kwargs("cmd", "id")))).isEqualTo(new RunCommand("id"));
        assertThat(AgentCallCodec.decode("cmd.script", List.of("s", "a  b c"))).isEqualTo(new RunScript("s", null, List.of("a", "b", "c")));
        assertThat(AgentCallCodec.decode("proc.operate", List.of("x", "reload"))).isEqualTo(new OperateProcess("x", ProcessOp.RELOAD));
        assertThatThrownBy(() -> AgentCallCodec.decode("cmd.run", List.of())).isInstanceOf(BadCall.class).hasMessage("'cmd' is required");
        assertThatThrownBy(() -> AgentCallCodec.decode("file.write", List.of("/x"))).isInstanceOf(BadCall.class)
                .hasMessage("give either 'content' or 'source' (with 'sha256')");
        assertThatThrownBy(() -> AgentCallCodec.decode("file.write", List.of("/x", kwargs("source", "s")))).isInstanceOf(BadCall.class)
                .hasMessage("'sha256' is required");
        assertThatThrownBy(() -> AgentCallCodec.decode("file.remove", List.of(List.of("a")))).isInstanceOf(BadCall.class)
                .hasMessage("'path' must be a single value, not a list");
        assertThatThrownBy(() -> AgentCallCodec.decode("proc.operate", List.of("x", "EXPLODE"))).isInstanceOf(BadCall.class)
                .hasMessageContaining("is not one of START, STOP, RESTART");
        assertThatThrownBy(() -> AgentCallCodec.decode("state.apply", List.of())).isInstanceOf(UnknownFunction.class)
                .hasMessage("'state.apply' is not available on this agent");
        assertThatThrownBy(() -> AgentCallCodec.decode(null, null)).isInstanceOf(UnknownFunction.class);
    }

    @Test
    void anUpgradesWaitDefaultsTo120SecondsAndIsBounded() {
        assertThat(AgentCallCodec.decode("agent.upgrade", List.of("p", SHA, "0.2.0")))
                .isEqualTo(new AgentCall.UpgradeAgent("p", SHA, "0.2.0", 120));
        assertThat(AgentCallCodec.decode("agent.upgrade", List.of("p", SHA, "0.2.0", kwargs("wait_seconds", "600"))))
                .isEqualTo(new AgentCall.UpgradeAgent("p", SHA, "0.2.0", 600));
        for (Object bad : List.of("x", "-5", "9", "3601", "1e3", "99999999999")) {
            assertThatThrownBy(() -> AgentCallCodec.decode("agent.upgrade", List.of("p", SHA, "0.2.0", bad)))
                    .as("%s", bad).isInstanceOf(BadCall.class).hasMessageContaining("wait_seconds");
        }
    }

    @Test
    void resultsHaveSaltsReturnValuesBothWays() {
        assertThat(AgentCallCodec.encodeResult(new Pong())).isEqualTo(true);
        assertThat(AgentCallCodec.decodeResult(new Ping(), true, 0)).isEqualTo(new Pong());
        assertThat(AgentCallCodec.encodeResult(new CommandOutput("up 3 days", 0))).isEqualTo("up 3 days");
        assertThat(AgentCallCodec.decodeResult(new RunCommand("false"), "", 1)).isEqualTo(new CommandOutput("", 1));
        FileWritten written = new FileWritten("/etc/x.conf", 5, "md5");
        Object wire = AgentCallCodec.encodeResult(written);
        assertThat(wire).isEqualTo(Map.of("path", "/etc/x.conf", "bytes", 5L, "md5", "md5"));
        assertThat(AgentCallCodec.decodeResult(new WriteFile("/etc/x.conf", "a", null), wire, 0)).isEqualTo(written);
        ProcessState state = new ProcessState("demo", ProcessOp.QUERY, ProcessStatus.RUNNING, 4242L, "1.0", true, null);
        assertThat(AgentCallCodec.decodeResult(new OperateProcess("demo", ProcessOp.QUERY), AgentCallCodec.encodeResult(state), 0))
                .isEqualTo(state);
        assertThat(AgentCallCodec.decodeResult(new UsedPorts(), List.of(22, 8080L), 0)).isEqualTo(new Ports(List.of(22, 8080)));
        AgentResult.UpgradeHandedOver handedOver = new AgentResult.UpgradeHandedOver("0.1.0", "0.2.0", "/var/log/drover-agent/upgrade.log");
        assertThat(AgentCallCodec.decodeResult(new AgentCall.UpgradeAgent("a", SHA, "0.2.0", 120),
                AgentCallCodec.encodeResult(handedOver), 0)).isEqualTo(handedOver);
        Map<String, Object> planResult = Map.of("FormatVersion", "2.0.0", "ErrorCode", 0, "Body", "ok");
        assertThat(AgentCallCodec.encodeResult(new AgentResult.PlanFinished(planResult))).isEqualTo(planResult);
        assertThat(AgentCallCodec.decodeResult(new AgentCall.RunPlan("{}"), planResult, 0))
                .isEqualTo(new AgentResult.PlanFinished(planResult));
    }

    @Test
    void resultsWrittenOutAreTheMapsJacksonMadeOfThem() {
        List<AgentResult> results = List.of(
                new AgentResult.JobKilled("20261125012345123456", true, 3),
                new FileWritten("/etc/x.conf", 5_000_000_000L, "md5"),
                new AgentResult.FileRemoved("/etc/x.conf", false),
                new AgentResult.PackageInstalled("/usr/local/gse/plugins", 12, SHA),
                new AgentResult.UpgradeHandedOver("0.1.0", "0.2.0", "/var/log/drover-agent/upgrade.log"),
                new AgentResult.InstalledPackage("/opt/x", false, ""),
                new AgentResult.InstalledPackage(null, true, null),
                new AgentResult.OperationOutcome(false, Map.of("cpu", "12", "mem", "3"), "timed out"),
                new AgentResult.OperationOutcome(true, null, null),
                new AgentResult.PluginRemoved("/opt/x", true),
                new AgentResult.ProcessRegistered("demo", true),
                new AgentResult.ProcessUnregistered("demo", false),
                new ProcessState("demo", ProcessOp.QUERY, ProcessStatus.RUNNING, 4242L, "1.0", true, false),
                new ProcessState("demo", ProcessOp.STOP, ProcessStatus.TERMINATED, null, null, null, null));
        for (AgentResult result : results) {
            Object wire = AgentCallCodec.encodeResult(result);
            assertThat(wire).as(result.toString()).isEqualTo(io.drover.model.Json.json().convertValue(result, Map.class));
            assertThat(AgentCallCodec.decodeResult(callFor(result), wire, 0)).isEqualTo(result);
        }
    }

    private static AgentCall<?> callFor(AgentResult result) {
        return switch (result) {
            case AgentResult.JobKilled k -> new AgentCall.KillJob(k.jid());
            case FileWritten f -> new WriteFile(f.path(), "a", null);
            case AgentResult.FileRemoved f -> new RemoveFile(f.path());
            case AgentResult.PackageInstalled p -> new InstallPackage("salt://x.tgz", SHA, p.targetDir());
            case AgentResult.UpgradeHandedOver u -> new AgentCall.UpgradeAgent("a", SHA, u.toVersion(), 120);
            case AgentResult.InstalledPackage i -> new QueryPackage("/opt/x");
            case AgentResult.OperationOutcome o -> new AgentCall.RunOperation(null);
            case AgentResult.PluginRemoved r -> new RemovePlugin(r.targetDir());
            case AgentResult.ProcessRegistered r -> new RegisterProcess(null);
            case AgentResult.ProcessUnregistered u -> new UnregisterProcess(u.name());
            case ProcessState p -> new OperateProcess(p.name(), p.op());
            default -> throw new IllegalArgumentException(result.toString());
        };
    }

    @Test
    void aKilledJobIsReadFromADroverAgentsMapAndFromASaltMinionsSentence() {
        AgentCall.KillJob kill = new AgentCall.KillJob("20261125012345123456");
        AgentResult.JobKilled killed = new AgentResult.JobKilled("20261125012345123456", true, 3);
        assertThat(AgentCallCodec.encodeResult(killed))
                .isEqualTo(Map.of("jid", "20261125012345123456", "found", true, "signalled", 3));
        assertThat(AgentCallCodec.decodeResult(kill, AgentCallCodec.encodeResult(killed), 0)).isEqualTo(killed);
        assertThat(AgentCallCodec.decodeResult(kill, "Signal 9 sent to job 20261125012345123456 at pid 4242", 0))
                .isEqualTo(new AgentResult.JobKilled("20261125012345123456", true, 1));
        assertThat(AgentCallCodec.decodeResult(kill, "", 0))
                .isEqualTo(new AgentResult.JobKilled("20261125012345123456", false, 0));
        assertThat(AgentCallCodec.decodeResult(kill, "Job 20261125012345123456 was not running and job data has been "
                + " cleaned up", 0)).isEqualTo(new AgentResult.JobKilled("20261125012345123456", false, 0));
        assertThatThrownBy(() -> AgentCallCodec.decodeResult(kill, List.of(1), 0)).isInstanceOf(BadCall.class)
                .hasMessageContaining("JobKilled");
        assertThatThrownBy(() -> AgentCallCodec.decode("saltutil.kill_job", List.of())).isInstanceOf(BadCall.class)
                .hasMessageContaining("jid");
    }

    @Test
    void fileManagedIsSaltsSpellingOfAWrite() {
        assertThat(AgentCallCodec.decode("file.managed", List.of("/etc/app.conf", Map.of("contents", "a=1", "mode", "0644",
                "__kwarg__", true)))).isEqualTo(new WriteFile("/etc/app.conf", "a=1", "0644"));
        assertThat(AgentCallCodec.decode("file.managed", List.of(Map.of("name", "/etc/x", "source", "salt://pkgs/x",
                "source_hash", "sha256:" + "a".repeat(64), "__kwarg__", true))))
                .isEqualTo(new FetchFile("/etc/x", "pkgs/x", "a".repeat(64), null));
        assertThatThrownBy(() -> AgentCallCodec.decode("file.managed", List.of("/etc/x"))).isInstanceOf(BadCall.class)
                .hasMessageContaining("give either 'contents' or 'source'");
    }

    @Test
    void anAnswerOfAnotherShapeIsABadCallNamingWhatCame() {
        assertThatThrownBy(() -> AgentCallCodec.decodeResult(new Ping(), "nope", 0)).isInstanceOf(BadCall.class)
                .hasMessageContaining("answered nope to test.ping");
        assertThatThrownBy(() -> AgentCallCodec.decodeResult(new WriteFile("/x", "a", null), "permission denied", 1))
                .isInstanceOf(BadCall.class).hasMessageContaining("answered permission denied where FileWritten was expected");
        assertThatThrownBy(() -> AgentCallCodec.decodeResult(new UsedPorts(), Map.of(), 0)).isInstanceOf(BadCall.class);
        assertThatThrownBy(() -> AgentCallCodec.decodeResult(new OperateProcess("x", ProcessOp.QUERY),
                Map.of("status", "EXPLODED"), 0)).isInstanceOf(BadCall.class).hasMessageContaining("ProcessState");
    }
}
