package io.drover.core.plans;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What an agent remembers of a started plan so that, found unfinished at its next start, the plan is run again or
 * answered: whether it was waiting for a reboot ({@code api.waitReboot}) and with which {@code expectReboots} limit,
 * how many reboots it has been restarted after, and how many times it was restarted after a crash.
 *
 * <p>The seed asks at least that a plan cut short be run again from the start. A plan is restarted from the start
 * once after a crash (the agent stopped while the plan was not waiting for a reboot); cut short again, it is answered
 * with error 1. A plan waiting for a reboot is restarted as many times as its {@code expectReboots} count allows
 * (default {@link #DEFAULT_REBOOTS}); one reboot more is a reboot loop, answered with error 1. Calling
 * {@code waitReboot} again in a restarted run never gives back reboots already used.
 *
 * @param waitingLimit the {@code expectReboots} limit while the plan waits for a reboot; empty otherwise
 * @param reboots restarts after a reboot so far
 * @param crashRestarts restarts after a crash so far
 */
public record PlanRestarts(Optional<Integer> waitingLimit, int reboots, int crashRestarts) {
    public static final int DEFAULT_REBOOTS = 10;
    public static final int MAX_CRASH_RESTARTS = 1;
    public static final PlanRestarts STARTED = new PlanRestarts(Optional.empty(), 0, 0);

    public PlanRestarts {
        if (reboots < 0 || crashRestarts < 0 || waitingLimit.isPresent() && waitingLimit.get() < 0) {
            throw new IllegalArgumentException("negative restart counts");
        }
    }

    /** The plan waits for a reboot, allowing {@code limit} reboots in all. */
    public PlanRestarts waiting(int limit) {
        return new PlanRestarts(Optional.of(Math.max(0, limit)), reboots, crashRestarts);
    }

    /** The wait is over without a reboot: a stop from now on is a crash. */
    public PlanRestarts running() {
        return new PlanRestarts(Optional.empty(), reboots, crashRestarts);
    }

    /** What to do with the plan found unfinished at a start. */
    public sealed interface Decision {
        /** Run it again from the start, remembering {@code next}. */
        record Restart(PlanRestarts next, boolean afterReboot) implements Decision {
        }

        /** Answer it with this error; it is not run again. */
        record Answer(PlanException error) implements Decision {
        }
    }

    public Decision atStart() {
        if (waitingLimit.isPresent()) {
            int limit = waitingLimit.get();
            if (reboots + 1 > limit) {
                return new Decision.Answer(new PlanException(PlanErrorCode.GENERIC, "The plan was restarted after " + reboots
                        + " reboot(s) and waited for one more, over its limit of " + limit + " (api.expectReboots; default "
                        + DEFAULT_REBOOTS + "): a reboot loop; it was not run again"));
            }
            return new Decision.Restart(new PlanRestarts(Optional.empty(), reboots + 1, crashRestarts), true);
        }
        if (crashRestarts >= MAX_CRASH_RESTARTS) {
            return new Decision.Answer(new PlanException(PlanErrorCode.GENERIC, "The agent stopped while this plan ran, again"
                    + " after it was restarted from the start; it was not run a third time"));
        }
        return new Decision.Restart(new PlanRestarts(Optional.empty(), reboots, crashRestarts + 1), false);
    }

    /** As stored on disk. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("waitingLimit", waitingLimit.orElse(null));
        map.put("reboots", reboots);
        map.put("crashRestarts", crashRestarts);
        return map;
    }

    /** From {@link #toMap()}; anything unreadable is a plan that started and was never restarted. */
    public static PlanRestarts fromMap(Object stored) {
        if (!(stored instanceof Map<?, ?> map)) {
            return STARTED;
        }
        Optional<Integer> limit = map.get("waitingLimit") instanceof Number n && n.intValue() >= 0
                ? Optional.of(n.intValue()) : Optional.empty();
        return new PlanRestarts(limit, count(map.get("reboots")), count(map.get("crashRestarts")));
    }

    private static int count(Object value) {
        return value instanceof Number n && n.intValue() >= 0 ? n.intValue() : 0;
    }
}
