package io.drover.transport.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {

    @Test
    void logsOncePerKindEveryTenSecondsWithTheCountOfTheRest() {
        Logger logger = (Logger) LoggerFactory.getLogger("rate-limited-test");
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        AtomicLong now = new AtomicLong(1_000);
        RateLimitedLog log = new RateLimitedLog(logger, now::get);

        for (int i = 0; i < 1_000; i++) {
            log.warn("oversize", "closed a connection from {}", "peer-" + i);
            log.warn("garbage", "dropped {}", i);
        }
        assertThat(seen.list).extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("closed a connection from peer-0", "dropped 0");

        now.addAndGet(RateLimitedLog.EVERY_NANOS);
        log.warn("oversize", "closed a connection from {}", "late");
        assertThat(seen.list).hasSize(2);
        now.addAndGet(1);
        log.warn("oversize", "closed a connection from {}", "later");
        assertThat(seen.list.getLast().getFormattedMessage())
                .isEqualTo("closed a connection from later (1000 more like it not logged)");

        log.warn("failed", "a request failed", new IllegalStateException("boom"));
        assertThat(seen.list.getLast().getThrowableProxy().getMessage()).isEqualTo("boom");
    }
}
