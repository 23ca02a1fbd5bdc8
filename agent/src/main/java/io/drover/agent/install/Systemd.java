package io.drover.agent.install;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The agent as the systemd service {@code drover-agent.service}, driven through {@code systemctl}. */
final class Systemd implements AgentService {
    /** Runs {@code systemctl ARGS}; tests record the calls instead. */
    interface Systemctl {
        /** What one call printed (standard output and error together) and its exit status. */
        record Result(int exit, String output) {
        }

        Result run(List<String> args) throws IOException;

        Systemctl REAL = new Systemctl() {
            @Override
            public Result run(List<String> args) throws IOException {
                List<String> command = new ArrayList<>();
                command.add("systemctl");
                command.addAll(args);
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                String output;
                try (InputStream in = process.getInputStream()) {
                    output = new String(in.readNBytes(16 * 1024), StandardCharsets.UTF_8);
                    in.transferTo(java.io.OutputStream.nullOutputStream());
                }
                try {
                    if (!process.waitFor(120, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                        throw new IOException("systemctl " + String.join(" ", args) + " did not finish within 120 s");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    process.destroyForcibly();
                    throw new IOException("interrupted");
                }
                return new Result(process.exitValue(), output);
            }
        };
    }

    private final Layout layout;
    private final Systemctl systemctl;

    Systemd(Layout layout, Systemctl systemctl) {
        this.layout = layout;
        this.systemctl = systemctl;
    }

    @Override
    public Kind kind() {
        return Kind.SYSTEMD;
    }

    /** Writes the unit (0644) when it differs and has systemd read it again; true when it changed. */
    boolean writeUnit(String text) throws InstallFailed {
        SafeFiles.directory(layout.unit().getParent(), "rwxr-xr-x");
        if (!SafeFiles.write(layout.unit(), text.getBytes(StandardCharsets.UTF_8), "rw-r--r--")) {
            return false;
        }
        call("daemon-reload");
        return true;
    }

    @Override
    public void start() throws InstallFailed {
        call("enable", "--now", Layout.UNIT_NAME);
    }

    @Override
    public void stop() throws InstallFailed {
        if (Files.exists(layout.unit(), LinkOption.NOFOLLOW_LINKS)) {
            call("stop", Layout.UNIT_NAME);
        }
    }

    @Override
    public void remove() throws InstallFailed {
        if (!Files.exists(layout.unit(), LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        call("disable", "--now", Layout.UNIT_NAME);
        SafeFiles.delete(layout.unit());
        call("daemon-reload");
    }

    @Override
    public boolean running() {
        String state = state();
        return state.equals("active") || state.equals("activating") || state.equals("reloading");
    }

    /** What {@code systemctl is-active} says: active, activating, inactive, failed, ...; "unknown" when it cannot say. */
    String state() {
        try {
            String output = systemctl.run(List.of("is-active", Layout.UNIT_NAME)).output().strip();
            return output.matches("[a-z-]{1,20}") ? output : "unknown";
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public String describe() {
        return "systemd unit " + Layout.UNIT_NAME + ": " + state();
    }

    @Override
    public String log() {
        return "journalctl -u " + Layout.UNIT_NAME;
    }

    private void call(String... args) throws InstallFailed {
        Systemctl.Result result;
        try {
            result = systemctl.run(List.of(args));
        } catch (IOException e) {
            throw new InstallFailed("cannot run systemctl " + String.join(" ", args) + ": " + e.getMessage());
        }
        if (result.exit() != 0) {
            String output = result.output().strip();
            int newline = output.indexOf('\n');
            throw new InstallFailed("systemctl " + String.join(" ", args) + " failed (exit " + result.exit() + ")"
                    + (output.isEmpty() ? "" : ": " + InstallOptions.show(newline < 0 ? output : output.substring(0, newline))));
        }
    }
}
