package io.drover.agent.install;

/** {@code --service none}: nothing runs the agent; the operator's own supervisor runs {@link Layout#runCommand()}. */
final class Unsupervised implements AgentService {
    private final Layout layout;

    Unsupervised(Layout layout) {
        this.layout = layout;
    }

    @Override
    public Kind kind() {
        return Kind.NONE;
    }

    @Override
    public void start() {
    }

    @Override
    public void stop() {
    }

    @Override
    public void remove() {
    }

    @Override
    public boolean running() {
        return false;
    }

    @Override
    public String describe() {
        return "none (the agent runs under your own supervisor as: " + String.join(" ", layout.runCommand()) + ")";
    }

    @Override
    public String log() {
        return "the output your supervisor keeps";
    }
}
