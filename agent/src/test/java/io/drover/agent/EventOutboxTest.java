package io.drover.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventOutboxTest {
    final List<String> delivered = new ArrayList<>();
    boolean up = true;
    final EventOutbox outbox = new EventOutbox((tag, data) -> {
        if (up) {
            delivered.add(tag + " " + data.get("n"));
        }
        return up;
    }, 3);

    @Test
    void eventsAreSentAtOnceWhileTheMasterIsThere() {
        outbox.send("log", Map.of("n", 1));
        assertThat(delivered).containsExactly("log 1");
        assertThat(outbox.size()).isZero();
    }

    @Test
    void eventsKeptWhileTheMasterIsAwayAreSentInOrderWhenItIsBack() {
        up = false;
        outbox.send("log", Map.of("n", 1));
        outbox.send("log", Map.of("n", 2));
        assertThat(delivered).isEmpty();
        assertThat(outbox.flush()).isEqualTo(2);
        up = true;
        outbox.send("log", Map.of("n", 3)); // a new event goes after the kept ones
        assertThat(delivered).containsExactly("log 1", "log 2", "log 3");
        assertThat(outbox.size()).isZero();
    }

    @Test
    void pastItsCapacityTheOldestAreDropped() {
        up = false;
        for (int n = 1; n <= 5; n++) {
            outbox.send("log", Map.of("n", n));
        }
        assertThat(outbox.size()).isEqualTo(3);
        up = true;
        assertThat(outbox.flush()).isZero();
        assertThat(delivered).containsExactly("log 3", "log 4", "log 5");
    }
}
