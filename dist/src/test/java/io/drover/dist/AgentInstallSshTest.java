package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents installed over SSH by the server (POST /api/v1/agent-installs) on "hosts" that are real OpenSSH servers on
 * 127.0.0.1, each with its own --prefix: the package the build made is uploaded, checked, unpacked and installed, the
 * agent signs in with a single-use enrollment token and is linked to its inventory host; failures stay on their host.
 */
class AgentInstallSshTest {
    static final Path PACKAGES = Path.of("target/agent-packages");

    @TempDir
    Path tmp;
    private final List<Sshd> sshds = new ArrayList<>();
    private final List<Path> prefixes = new ArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (Sshd s : sshds) {
            s.close();
        }
        // the installed agents run detached (--service process): stopped by their pid files, and waited for, since an
        // agent that is stopping still writes under its prefix, and the temporary directory is deleted next
        List<ProcessHandle> stopping = new ArrayList<>();
        for (Path prefix : prefixes) {
            Path pid = prefix.resolve("var/lib/drover-agent/agent.pid");
            if (Files.isRegularFile(pid)) {
                ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).ifPresent(agent -> {
                    agent.destroy();
                    stopping.add(agent);
                });
            }
        }
        for (ProcessHandle agent : stopping) {
            try {
                agent.onExit().get(15, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                agent.destroyForcibly();
                agent.onExit().get(15, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    Fleet fleet() throws Exception {
        assertThat(PACKAGES).as("the build's agent-package step writes the package here").isDirectory();
        assertThat(Sshd.BINARY).as("openssh-server is needed (.ci/run installs it)").isExecutable();
        TestServer server = TestServer.start(TestServer.newDataDir(),
                Map.of(Setting.AGENT_PACKAGES_DIR, PACKAGES.toAbsolutePath().toString()));
        Fleet fleet = new Fleet(server, tmp.resolve("roots"));
        assertThat(fleet.drover("inventory", "import", "../examples/inventory/demo.yaml").exit()).isZero();
        return fleet;
    }

    Path clientKey() throws Exception {
        Path key = tmp.resolve("client_key");
        if (!Files.exists(key)) {
            Sshd.keygen(key, "ed25519"); // what ssh-keygen makes by default; the host keys are ECDSA
            Files.copy(tmp.resolve("client_key.pub"), tmp.resolve("authorized_keys"));
        }
        return key;
    }

    Sshd sshd(String name, String extra) throws Exception {
        clientKey();
        Sshd s = Sshd.start(tmp.resolve("sshd-" + name), TestServer.freePort(), tmp.resolve("authorized_keys"), extra);
        sshds.add(s);
        return s;
    }

    /** A host with a --prefix of its own (its "disk"). */
    Map<String, Object> host(Sshd sshd, String id, String ip) throws Exception {
        Path prefixes = tmp.resolve("prefixes");
        Files.createDirectories(prefixes);
        Path prefix = Files.createTempDirectory(prefixes, id);
        this.prefixes.add(prefix);
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("prefix", prefix.toString());
        h.put("address", "127.0.0.1");
        h.put("port", sshd == null ? TestServer.freePort() : sshd.port);
        h.put("id", id);
        h.put("inner_ip", ip);
        return h;
    }

    Map<String, Object> request(Fleet fleet, List<Map<String, Object>> hosts, String masterPort) throws Exception {
        var master = fleet.server.server().master();
        Map<String, Object> r = new HashMap<>();
        r.put("hosts", hosts);
        r.put("ssh_user", "root");
        r.put("ssh_private_key", Files.readString(clientKey()));
        r.put("bk_biz_id", 2);
        r.put("masters", List.of("127.0.0.1:" + (masterPort == null ? master.requestPort() : masterPort)));
        r.put("publish_port", master.publishPort());
        r.put("service", "process");
        r.put("wait_seconds", 30);
        return r;
    }

    JsonNode install(Fleet fleet, Map<String, Object> request) {
        TestServer.Response started = fleet.server.post("/api/v1/agent-installs", fleet.server.adminToken(), request);
        assertThat(started.status()).as(started.text()).isEqualTo(202);
        long id = started.body().get("id").asLong();
        return awaitEnd(fleet, id);
    }

    JsonNode awaitEnd(Fleet fleet, long id) {
        JsonNode[] task = new JsonNode[1];
        await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(250)).until(() -> {
            task[0] = fleet.server.get("/api/v1/agent-installs/" + id, fleet.server.adminToken()).body();
            return !task[0].get("status").asText().equals("running");
        });
        return task[0];
    }

    static JsonNode host(JsonNode task, String agentId) {
        for (JsonNode h : task.get("hosts")) {
            if (h.get("agent_id").asText().equals(agentId)) {
                return h;
            }
        }
        throw new AssertionError("no host " + agentId + " in " + task.toPrettyString());
    }

    static List<String> steps(JsonNode host) {
        List<String> names = new ArrayList<>();
        host.get("steps").forEach(s -> names.add(s.get("name").asText() + ":" + s.get("status").asText()));
        return names;
    }

    @Test
    void installsOverSshSignsInLinksAndRunsAJob() throws Exception {
        try (Fleet fleet = fleet()) {
            Sshd sshd = sshd("api-1", "");
            Map<String, Object> installed = host(sshd, "api-1.ssh", "10.0.1.3");
            JsonNode task = install(fleet, request(fleet, List.of(installed), null));
            JsonNode h = host(task, "api-1.ssh");
            assertThat(h.get("status").asText()).as(task.toPrettyString()).isEqualTo("succeeded");
            assertThat(task.get("status").asText()).isEqualTo("succeeded");
            assertThat(steps(h)).containsExactly("connect:succeeded", "detect:succeeded", "upload:succeeded", "unpack:succeeded",
                    "install:succeeded", "sign_in:succeeded", "link:succeeded");
            assertThat(h.get("arch").asText()).isEqualTo("x86_64");
            assertThat(h.toString()).contains("seen for the first time").contains("signed in").doesNotContain("drv_enroll_");
            // no master_finger in the request: the agent pins this server's key all the same
            String finger = io.drover.transport.crypto.RsaKeys.fingerprint(fleet.server.server().master().publicKeyPem());
            assertThat(Files.readString(Path.of(installed.get("prefix").toString()).resolve("etc/drover/agent.yaml")))
                    .contains(finger);

            Fleet.Run agents = fleet.drover("agent", "list");
            assertThat(agents.out()).containsPattern("api-1\\.ssh\\s.*\\b3\\b");
            assertThat(fleet.server.server().agents().hostOf("api-1.ssh")).isEqualTo(3L);
            Fleet.Run run = fleet.drover("run", "api-1.ssh", "cmd.run", "echo installed over ssh");
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("installed over ssh");
            // the token the host was given is used up and revoked
            assertThat(fleet.server.get("/api/v1/enrollment-tokens", fleet.server.adminToken()).text())
                    .contains("\"uses\":1").contains("revoked_at\":\"");

            // upgraded to a second build through the running agent, which keeps its key and link
            Path second = AgentPackageTest.repack(Files.createDirectories(tmp.resolve("second-build")), "9.9.9");
            Fleet.Run uploaded = fleet.drover("agent-package", "upload", second.toString());
            assertThat(uploaded.exit()).as(uploaded.out() + uploaded.err()).isZero();
            Fleet.Run upgraded = fleet.drover("agent", "upgrade", "--target", "api-1.ssh", "--version", "9.9.9",
                    "--wait-seconds", "120", "--wait");
            assertThat(upgraded.exit()).as(upgraded.out() + upgraded.err()).isZero();
            assertThat(upgraded.out()).contains("1 succeeded, 0 skipped, 0 failed, 0 not started");
            assertThat(fleet.drover("run", "api-1.ssh", "test.version").out()).contains("9.9.9");
            assertThat(fleet.server.server().agents().hostOf("api-1.ssh")).isEqualTo(3L);

            // and uninstalled with the launcher the upgrade left: the agent goes offline, nothing of it stays
            Path prefix = Path.of(installed.get("prefix").toString());
            Process uninstall = new ProcessBuilder(prefix.resolve("opt/drover-agent/current/bin/drover-agent").toString(),
                    "uninstall", "--prefix", prefix.toString(), "--purge").redirectErrorStream(true).start();
            String removed = new String(uninstall.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(uninstall.waitFor()).as(removed).isZero();
            assertThat(prefix.resolve("opt/drover-agent")).doesNotExist();
            assertThat(prefix.resolve("var/lib/drover-agent")).doesNotExist();
            assertThat(removed).contains("removed").doesNotContain("jimage", "Exception");
            assertThat(fleet.drover("run", "api-1.ssh", "test.ping", "--timeout", "3").exit()).as("the agent still answers").isNotZero();
        }
    }

    @Test
    void eachFailureIsOneClearLineOnItsHostAndTheOthersGoOn() throws Exception {
        try (Fleet fleet = fleet()) {
            Sshd good = sshd("good", "");
            Sshd rekeyed = sshd("rekeyed", "");
            Path otherKeys = tmp.resolve("other_authorized_keys");
            Files.writeString(otherKeys, "");
            Sshd strangers = Sshd.start(tmp.resolve("sshd-strangers"), TestServer.freePort(), otherKeys, "");
            sshds.add(strangers);
            // uname says aarch64 here: there is no aarch64 package
            Path shim = tmp.resolve("shim");
            Files.createDirectories(shim);
            Files.writeString(shim.resolve("uname"), "#!/bin/sh\necho 'Linux aarch64'\n");
            shim.resolve("uname").toFile().setExecutable(true);
            Sshd arm = sshd("arm", "SetEnv PATH=" + shim + ":/usr/bin:/bin:/usr/sbin:/sbin");

            // a wrong password: refused, and the password is nowhere in the task
            Map<String, Object> byPassword = request(fleet, List.of(host(rekeyed, "rekeyed", null)), null);
            byPassword.remove("ssh_private_key");
            byPassword.put("ssh_password", "Not-The-Password-42");
            JsonNode refused = install(fleet, byPassword);
            assertThat(host(refused, "rekeyed").get("error").asText()).contains("authentication of root on 127.0.0.1:" + rekeyed.port + " failed");
            assertThat(refused.toString()).doesNotContain("Not-The-Password-42");
            assertThat(fleet.server.get("/api/v1/audit?limit=50", fleet.server.adminToken()).text()).doesNotContain("Not-The-Password-42");

            // that first contact recorded its host key; now the host has another one
            rekeyed.newHostKey();
            rekeyed.restart();

            long started = System.nanoTime();
            JsonNode task = install(fleet, request(fleet, List.of(host(good, "good-1", "10.0.1.1"), host(rekeyed, "rekeyed", null),
                    host(strangers, "strangers", null), host(null, "nobody-home", null), host(arm, "arm-1", "10.0.1.4")), null));
            System.out.printf("five hosts, four failing: %d ms%n", (System.nanoTime() - started) / 1_000_000);
            assertThat(task.get("status").asText()).isEqualTo("failed");
            assertThat(task.get("succeeded").asInt()).isEqualTo(1);
            assertThat(task.get("failed").asInt()).isEqualTo(4);
            assertThat(host(task, "good-1").get("status").asText()).as(task.toPrettyString()).isEqualTo("succeeded");
            assertThat(host(task, "rekeyed").get("error").asText()).contains("host key of 127.0.0.1:" + rekeyed.port + " changed")
                    .containsPattern("recorded ecdsa-sha2-nistp256 SHA256:\\S+, presented ecdsa-sha2-nistp256 SHA256:\\S+");
            assertThat(host(task, "strangers").get("error").asText()).contains("authentication of root").contains("failed");
            assertThat(host(task, "nobody-home").get("error").asText()).contains("cannot connect to 127.0.0.1:").contains("connection refused");
            assertThat(host(task, "arm-1").get("error").asText()).contains("no agent package for linux-aarch64");
            assertThat(steps(host(task, "arm-1"))).containsExactly("connect:succeeded", "detect:failed");
            assertThat(fleet.server.server().agents().hostOf("good-1")).isEqualTo(1L);

            // through a jump host (the good host's sshd): its key is recorded too, the host behind it is reached
            Map<String, Object> viaJump = request(fleet, List.of(host(arm, "arm-2", null)), null);
            viaJump.put("jump", "root@127.0.0.1:" + good.port);
            JsonNode jumped = install(fleet, viaJump);
            JsonNode armHost = host(jumped, "arm-2");
            assertThat(armHost.get("error").asText()).as(jumped.toPrettyString()).contains("no agent package for linux-aarch64");
            assertThat(armHost.get("steps").get(0).toString()).contains("through 127.0.0.1:" + good.port)
                    .contains("host key of 127.0.0.1:" + good.port + " matches the recorded one")
                    .contains("host key of 127.0.0.1:" + arm.port + " matches the recorded one");

            // an agent that never signs in: nobody listens on its master address (with the CLI, following the install)
            Sshd lonely = sshd("lonely", "");
            Map<String, Object> lonelyHost = host(lonely, "lonely-1", "10.0.2.1");
            Fleet.Run silent = fleet.drover("agent", "install-remote", "127.0.0.1:" + lonely.port, "--ssh-user", "root",
                    "--ssh-key", clientKey().toString(), "--business", "2", "--master", "127.0.0.1:" + TestServer.freePort(),
                    "--id", "lonely-1", "--ip", "10.0.2.1", "--prefix", lonelyHost.get("prefix").toString(), "--service", "process",
                    "--wait-seconds", "3", "--wait");
            assertThat(silent.exit()).as(silent.out() + silent.err()).isEqualTo(1);
            assertThat(silent.out()).contains("lonely-1  failed  sign_in (failed)  the agent did not sign in")
                    .contains("succeeded, 1 failed");

            // a retry needs the credentials again and runs the failed hosts only
            TestServer.Response noCredentials = fleet.server.post("/api/v1/agent-installs/" + task.get("id").asLong() + "/retry",
                    fleet.server.adminToken(), Map.of());
            assertThat(noCredentials.status()).isEqualTo(422);
            Fleet.Run retried = fleet.drover("agent", "install-remote", "--retry", task.get("id").asText(), "--ssh-key",
                    clientKey().toString(), "--wait");
            assertThat(retried.exit()).as(retried.out() + retried.err()).isEqualTo(1);
            JsonNode again = awaitEnd(fleet, task.get("id").asLong());
            assertThat(host(again, "good-1").get("steps").size()).isEqualTo(7);
            assertThat(host(again, "rekeyed").get("error").asText()).contains("changed");
            assertThat(again.get("failed").asInt()).isEqualTo(4);

            // the host was re-installed on purpose: its key is forgotten as the error says, and the next install records the new one
            String error = host(again, "rekeyed").get("error").asText();
            assertThat(error).endsWith("if the host was re-installed: drover agent host-key forget 127.0.0.1:" + rekeyed.port + ", then retry");
            java.util.regex.Matcher presented = java.util.regex.Pattern.compile("presented ecdsa-sha2-nistp256 (SHA256:[A-Za-z0-9+/=]+)")
                    .matcher(error);
            assertThat(presented.find()).as(error).isTrue();
            Fleet.Run keys = fleet.drover("agent", "host-keys");
            assertThat(keys.out()).containsPattern("127\\.0\\.0\\.1\\s+" + rekeyed.port + "\\s+ecdsa-sha2-nistp256\\s+SHA256:")
                    .doesNotContain(presented.group(1));
            Fleet.Run forgot = fleet.drover("agent", "host-key", "forget", "127.0.0.1:" + rekeyed.port);
            assertThat(forgot.exit()).as(forgot.err()).isZero();
            Fleet.Run unknown = fleet.drover("agent", "host-key", "forget", "127.0.0.1:" + rekeyed.port);
            assertThat(unknown.exit()).isNotZero();
            assertThat(unknown.err()).contains("host key of 127.0.0.1:" + rekeyed.port + " does not exist");
            JsonNode reinstalled = install(fleet, request(fleet, List.of(host(rekeyed, "rekeyed-2", "10.0.1.2")), null));
            JsonNode fresh = host(reinstalled, "rekeyed-2");
            assertThat(fresh.get("status").asText()).as(reinstalled.toPrettyString()).isEqualTo("succeeded");
            assertThat(fresh.toString()).contains("host key of 127.0.0.1:" + rekeyed.port + " seen for the first time, recorded: "
                    + presented.group(1));
            assertThat(fleet.drover("agent", "host-keys").out()).contains(presented.group(1));

            Fleet.Run list = fleet.drover("agent", "installs");
            assertThat(list.out()).containsPattern("(?m)^" + task.get("id").asText() + "\\s+2\\s+failed\\s+5\\s+1\\s+4\\s");
            Fleet.Run shown = fleet.drover("agent", "installs", task.get("id").asText(), "--steps");
            assertThat(shown.out()).contains("good-1").contains("link succeeded").contains("host key of 127.0.0.1:" + rekeyed.port + " changed");
        }
    }

    @Test
    void hostileRequestsAreRefusedAndAHostileHostStaysInItsRow() throws Exception {
        try (Fleet fleet = fleet()) {
            String admin = fleet.server.adminToken();
            Sshd plain = sshd("plain", "");
            Map<String, Object> base = request(fleet, List.of(host(plain, "plain-1", null)), null);
            record Bad(String field, Object hosts, String prefix) {
            }
            Map<String, Object> fullwidth = host(plain, "fw", null);
            fullwidth.put("address", "\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com");
            Map<String, Object> nul = host(plain, "nul", null);
            nul.put("address", "host\u0000.example");
            Map<String, Object> rtl = host(plain, "x\u202eevil", null);
            List<Map<String, Object>> many = new ArrayList<>();
            for (int i = 0; i < 5001; i++) {
                many.add(Map.of("address", "10.1." + (i / 250) + "." + (i % 250 + 1), "id", "h" + i));
            }
            for (Bad bad : List.of(new Bad("hosts[0].address", List.of(fullwidth), null), new Bad("hosts[0].address", List.of(nul), null),
                    new Bad("hosts[0].id", List.of(rtl), null), new Bad("hosts", many, null),
                    new Bad("prefix", base.get("hosts"), "/tmp/../etc"), new Bad("prefix", base.get("hosts"), "/tmp/x'; rm -rf /"))) {
                Map<String, Object> body = new HashMap<>(base);
                body.put("hosts", bad.hosts());
                if (bad.prefix() != null) {
                    body.put("prefix", bad.prefix());
                }
                TestServer.Response r = fleet.server.post("/api/v1/agent-installs", admin, body);
                assertThat(r.status()).as(r.text()).isEqualTo(422);
                assertThat(r.text()).contains("\"" + bad.field() + "\"").doesNotContain("BEGIN OPENSSH PRIVATE KEY");
            }
            // a body the parser cannot read is refused without quoting it (it holds credentials)
            TestServer.Response malformed = fleet.server.postRaw("/api/v1/agent-installs", admin, "application/json",
                    "{\"ssh_user\": \"root\", \"ssh_password\": Sup3rSecretPassw0rd}");
            assertThat(malformed.status()).isEqualTo(400);
            assertThat(malformed.text()).doesNotContain("Sup3rSecretPassw0rd");
            assertThat(fleet.server.get("/api/v1/audit?limit=20", admin).text()).doesNotContain("Sup3rSecretPassw0rd");

            // a host whose uname answers a megabyte of escape sequences and NULs: refused at detect, its row stays small
            Path shim = tmp.resolve("garbage");
            Files.createDirectories(shim);
            Files.writeString(shim.resolve("uname"), "#!/bin/sh\nprintf 'Linux \\033[31m\\000../../etc/x86_64\\n'\n"
                    + "head -c 1048576 /dev/zero\n");
            shim.resolve("uname").toFile().setExecutable(true);
            Sshd garbage = sshd("garbage", "SetEnv PATH=" + shim + ":/usr/bin:/bin:/usr/sbin:/sbin");
            JsonNode task = install(fleet, request(fleet, List.of(host(garbage, "garbage-1", null)), null));
            JsonNode h = host(task, "garbage-1");
            assertThat(h.get("status").asText()).isEqualTo("failed");
            assertThat(h.get("error").asText()).startsWith("unsupported system: uname -sm said 'Linux ?[31m?../../etc/x86_64")
                    .doesNotContain("\u0000").doesNotContain("\u001b");
            assertThat(h.path("arch").asText()).isEmpty();
            assertThat(h.toString().length()).isLessThan(4000);
        }
    }

    @Test
    void twentyHostsAtOnce() throws Exception {
        try (Fleet fleet = fleet()) {
            StringBuilder inventory = new StringBuilder("""
                    businesses:
                      - {bk_biz_id: 2, bk_biz_name: demo shop}
                    sets:
                      - {bk_set_id: 90, bk_biz_id: 2, bk_set_name: ssh installs}
                    modules:
                      - {bk_module_id: 91, bk_set_id: 90, bk_module_name: fresh}
                    hosts:
                    """);
            for (int i = 1; i <= 20; i++) {
                inventory.append("  - {bk_host_id: ").append(200 + i).append(", bk_biz_id: 2, bk_host_innerip: 10.20.0.").append(i)
                        .append(", bk_cloud_id: 0, bk_host_name: fresh-").append(i).append(", os_type: linux, cpu_arch: x86_64, bk_module_ids: [91]}\n");
            }
            Path file = tmp.resolve("twenty.yaml");
            Files.writeString(file, inventory);
            Fleet.Run imported = fleet.drover("inventory", "import", file.toString());
            assertThat(imported.exit()).as(imported.err()).isZero();
            List<Map<String, Object>> hosts = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                hosts.add(host(sshd("fresh-" + i, ""), "fresh-" + i, "10.20.0." + i));
            }
            Map<String, Object> request = request(fleet, hosts, null);
            request.put("wait_seconds", 150);
            long started = System.nanoTime();
            JsonNode task = install(fleet, request);
            System.out.printf("20 hosts installed over SSH at once: %d ms%n", (System.nanoTime() - started) / 1_000_000);
            assertThat(task.get("succeeded").asInt()).as(task.toPrettyString()).isEqualTo(20);
            for (int i = 1; i <= 20; i++) {
                assertThat(fleet.server.server().agents().hostOf("fresh-" + i)).isEqualTo(200L + i);
            }
        }
    }
}
