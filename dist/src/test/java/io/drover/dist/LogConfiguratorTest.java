package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogConfiguratorTest {

    @Test
    void packageNamesShrinkFromTheLeftUntilTheNameFits() {
        assertThat(LogConfigurator.LineLayout.abbreviate("io.drover.transport.master.SaltMaster", 24))
                .isEqualTo("i.d.t.master.SaltMaster");
        assertThat(LogConfigurator.LineLayout.abbreviate("io.drover.Main", 24)).isEqualTo("io.drover.Main");
        assertThat(LogConfigurator.LineLayout.abbreviate("a.very.long.package.name.WithAVeryLongClassName", 10))
                .isEqualTo("a.v.l.p.n.WithAVeryLongClassName");
    }

    @Test
    void aLineHasTimeLevelThreadLoggerAndMessageThenTheStackTrace() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        LoggingEvent event = new LoggingEvent("x", context.getLogger("io.drover.server.DroverServer"), Level.WARN,
                "listening on {}", new IllegalStateException("boom"), new Object[] {8080});
        event.setThreadName("main");
        String line = new LogConfigurator.LineLayout().doLayout(event);
        assertThat(line).matches("(?s)\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) WARN  \\[main\\] "
                + "i\\.d\\.server\\.DroverServer - listening on 8080\\n.*IllegalStateException: boom.*");
    }

    @Test
    void theProcessIsConfiguredInCodeWithLibrariesQuiet() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        assertThat(context.getLogger("org.eclipse.jetty").getLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.INFO);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("console")).isNotNull();
    }
}
