package io.drover.core.agents;

import java.util.Set;

/**
 * Which event tags an agent may fire about itself. An agent speaks for itself only: tags under
 * {@code drover/agent/<its id>/…} (except those only the server writes, such as its presence), Salt's own start event
 * {@code salt/minion/<its id>/start}, and the log of an execution plan ({@code drover/plan/<run>/log}, which the
 * server keeps only for a plan sent to that agent). Anything else (another agent's tags, {@code salt/job/…} returns,
 * {@code salt/key}, inventory events) is refused.
 */
public final class AgentEventTags {
    /** What an event tag is, seen from the agent that fired it. */
    public enum Kind {
        /** {@code drover/agent/<id>/heartbeat}: presence, version and grains. */
        HEARTBEAT,
        /** {@code drover/plan/<run>/log}: a log line of a plan run; {@link Verdict#planRun} holds the run. */
        PLAN_LOG,
        /**
         * {@code drover/agent/<id>/job/<jid>/received|running}: how far the agent got with a job it was sent;
         * {@link Verdict#jid} and {@link Verdict#jobState} hold which and what. Recorded on the job, not stored as an event.
         */
        JOB_STATE,
        /** Under the agent's own namespace, or Salt's start event: stored and published as it is. */
        OWN,
        /** A tag the server alone writes about an agent (online, lost, linked, …), even the sender's own. */
        RESERVED,
        /** Another agent's namespace, or outside every agent's. */
        FOREIGN
    }

    public record Verdict(Kind kind, String planRun, String jid, String jobState) {
        public Verdict(Kind kind, String planRun) {
            this(kind, planRun, null, null);
        }

        public boolean allowed() {
            return kind != Kind.RESERVED && kind != Kind.FOREIGN;
        }
    }

    /** The longest tag accepted from an agent. */
    public static final int MAX_TAG_LENGTH = 255;
    /** The longest plan run id in a plan log tag. */
    public static final int MAX_PLAN_RUN_LENGTH = 128;

    /** The events the server writes about an agent (AgentRegistry): an agent firing one would forge its own presence. */
    private static final Set<String> SERVER_WRITTEN = Set.of("online", "lost", "linked", "link-conflict", "unlinked",
            "address-changed");
    private static final String AGENT_PREFIX = "drover/agent/";
    /** The job states an agent reports, after its own prefix. */
    private static final java.util.regex.Pattern JOB_STATE = java.util.regex.Pattern.compile("job/(\\d{20})/(received|running)");
    /** The agent-side half of {@link #JOB_STATE}: the tag an agent fires when it got that far with job {@code jid}. */
    public static String jobState(String agentId, String jid, String state) {
        return AGENT_PREFIX + agentId + "/job/" + jid + "/" + state;
    }

    private static final String PLAN_PREFIX = "drover/plan/";

    private AgentEventTags() {
    }

    public static Verdict classify(String agentId, String tag) {
        if (agentId == null || agentId.isEmpty() || agentId.indexOf('/') >= 0 || tag == null || tag.isEmpty() || tag.length() > MAX_TAG_LENGTH
                || !printable(tag)) {
            return new Verdict(Kind.FOREIGN, null);
        }
        String own = AGENT_PREFIX + agentId + "/";
        if (tag.startsWith(own)) {
            String rest = tag.substring(own.length());
            if (rest.equals("heartbeat")) {
                return new Verdict(Kind.HEARTBEAT, null);
            }
            // the last segment too: the server's listeners (triggers, lost jobs) know presence by how a tag ends
            if (rest.isEmpty() || SERVER_WRITTEN.contains(firstSegment(rest)) || SERVER_WRITTEN.contains(lastSegment(rest))) {
                return new Verdict(Kind.RESERVED, null);
            }
            java.util.regex.Matcher job = JOB_STATE.matcher(rest);
            if (job.matches()) {
                return new Verdict(Kind.JOB_STATE, null, job.group(1), job.group(2));
            }
            return new Verdict(Kind.OWN, null);
        }
        if (tag.equals("salt/minion/" + agentId + "/start")) {
            return new Verdict(Kind.OWN, null);
        }
        if (tag.startsWith(PLAN_PREFIX) && tag.endsWith("/log")) {
            String run = tag.substring(PLAN_PREFIX.length(), tag.length() - "/log".length());
            if (!run.isEmpty() && run.length() <= MAX_PLAN_RUN_LENGTH && run.indexOf('/') < 0) {
                return new Verdict(Kind.PLAN_LOG, run);
            }
        }
        return new Verdict(Kind.FOREIGN, null);
    }

    private static String lastSegment(String rest) {
        return rest.substring(rest.lastIndexOf('/') + 1);
    }

    private static String firstSegment(String rest) {
        int slash = rest.indexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    /** No control characters (NUL, newlines, …): a tag is shown in logs, streams and the console. */
    private static boolean printable(String tag) {
        for (int i = 0; i < tag.length(); i++) {
            char c = tag.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
                return false;
            }
        }
        return true;
    }
}
