package io.drover.agent.install;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code --service process} (containers, hosts without systemd, tests): the installer starts the agent itself, in a
 * session of its own ({@code setsid}) so that it outlives the installer and its terminal, with its output appended
 * to {@code var/log/drover-agent/agent.log} and its pid in {@code var/lib/drover-agent/agent.pid}. A pid is only ever
 * signalled after {@code /proc/<pid>/cmdline} shows it runs this installation's agent ({@code run --config <the
 * installed config>}): a stale pid file may name any process by now.
 */
final class BackgroundProcess implements AgentService {
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final Layout layout;
    private final Duration stopGrace;

    BackgroundProcess(Layout layout, Duration stopGrace) {
        this.layout = layout;
        this.stopGrace = stopGrace;
    }

    @Override
    public Kind kind() {
        return Kind.PROCESS;
    }

    @Override
    public void start() throws InstallFailed {
        if (running()) {
            return;
        }
        SafeFiles.directory(layout.logDir(), "rwx------");
        try {
            if (!Files.exists(layout.logFile(), LinkOption.NOFOLLOW_LINKS)) {
                Files.createFile(layout.logFile(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
        } catch (IOException e) {
            throw new InstallFailed("cannot create the log " + layout.logFile() + ": " + e);
        }
        List<String> command = new ArrayList<>();
        command.add("setsid");
        command.addAll(layout.runCommand());
        ProcessBuilder builder = detached(command, layout.logFile());
        Process process;
        try {
            process = builder.start(); // setsid execs the launcher when it is not a group leader: the pid stays
        } catch (IOException e) {
            throw new InstallFailed("cannot start the agent (" + String.join(" ", command) + "): " + e.getMessage());
        }
        SafeFiles.write(layout.pidFile(), (process.pid() + "\n").getBytes(StandardCharsets.US_ASCII), "rw-------");
    }

    @Override
    public void stop() throws InstallFailed {
        Optional<ProcessHandle> agent = agent();
        if (agent.isPresent()) {
            ProcessHandle handle = agent.get();
            handle.destroy(); // SIGTERM: the agent closes its sessions; plugins it supervises keep running
            if (!exited(handle, stopGrace)) {
                handle.destroyForcibly();
                if (!exited(handle, Duration.ofSeconds(5))) {
                    throw new InstallFailed("the agent (pid " + handle.pid() + ") did not stop; stop it and run the command again");
                }
            }
        }
        SafeFiles.delete(layout.pidFile());
    }

    @Override
    public void remove() throws InstallFailed {
        stop();
    }

    @Override
    public boolean running() {
        return agent().isPresent();
    }

    @Override
    public String describe() {
        return agent().map(p -> "process, running (pid " + p.pid() + ")").orElse("process, not running");
    }

    @Override
    public String log() {
        return layout.logFile().toString();
    }

    /** The running agent the pid file names, if it names one that runs this installation's agent. */
    Optional<ProcessHandle> agent() {
        long pid;
        try (InputStream in = Files.newInputStream(layout.pidFile(), LinkOption.NOFOLLOW_LINKS)) {
            String text = new String(in.readNBytes(32), StandardCharsets.US_ASCII).strip();
            if (!text.matches("[0-9]{1,10}")) {
                return Optional.empty();
            }
            pid = Long.parseLong(text);
        } catch (IOException e) {
            return Optional.empty();
        }
        if (pid <= 1 || pid == ProcessHandle.current().pid()) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(p -> runsOurAgent(p.pid()));
    }

    /** Whether {@code /proc/<pid>/cmdline} holds {@code run} and {@code --config <this installation's config>}. */
    private boolean runsOurAgent(long pid) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(Path.of("/proc/" + pid + "/cmdline"), StandardOpenOption.READ)) {
            bytes = in.readNBytes(64 * 1024);
        } catch (IOException e) {
            return false; // gone, or a zombie's
        }
        String[] args = new String(bytes, StandardCharsets.UTF_8).split("\0");
        boolean run = false;
        boolean config = false;
        for (int i = 0; i < args.length; i++) {
            run |= args[i].equals("run");
            config |= args[i].equals("--config") && i + 1 < args.length && args[i + 1].equals(layout.config().toString());
        }
        return run && config;
    }

    private static boolean exited(ProcessHandle handle, Duration max) {
        try {
            handle.onExit().get(max.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return !handle.isAlive();
        } catch (java.util.concurrent.ExecutionException e) {
            return !handle.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !handle.isAlive();
        }
    }

    /**
     * A process as a service would start it: in {@code /}, no input, output appended to {@code log}, and only PATH
     * and LANG of the caller's environment (which may hold DROVER_ENROLL_TOKEN or other secrets).
     */
    static ProcessBuilder detached(List<String> command, Path log) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(new File("/"))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        String lang = env.get("LANG");
        env.clear();
        env.put("PATH", PATH);
        if (lang != null && lang.matches("[A-Za-z0-9_.@-]{1,64}")) {
            env.put("LANG", lang);
        }
        return builder;
    }
}
