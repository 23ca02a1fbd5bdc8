package io.drover.dist;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Logging for every Drover process, set up in code rather than from an XML file: one line per event on standard
 * output, INFO and up, libraries' chatter at WARN. Logback's XML configuration alone loads some 600 classes
 * (its parser and model), which an idle agent would carry in memory for its whole life.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    static final List<String> QUIET = List.of("com.zaxxer.hikari", "org.flywaydb", "org.eclipse.jetty", "io.javalin");

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        LineLayout layout = new LineLayout();
        layout.setContext(context);
        layout.start();
        encoder.setLayout(layout);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("console");
        console.setEncoder(encoder);
        console.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console);
        QUIET.forEach(name -> context.getLogger(name).setLevel(Level.WARN));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** {@code 2026-11-25T13:53:38.373Z INFO  [main] i.d.t.master.SaltMaster - message}, then the stack trace if any. */
    static final class LineLayout extends LayoutBase<ILoggingEvent> {
        private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
                .withZone(ZoneId.systemDefault());

        @Override
        public String doLayout(ILoggingEvent event) {
            StringBuilder line = new StringBuilder(128);
            line.append(TIME.format(Instant.ofEpochMilli(event.getTimeStamp()))).append(' ');
            String level = event.getLevel().toString();
            line.append(level).append(" ".repeat(Math.max(0, 5 - level.length())));
            line.append(" [").append(event.getThreadName()).append("] ").append(abbreviate(event.getLoggerName(), 24))
                    .append(" - ").append(event.getFormattedMessage()).append('\n');
            if (event.getThrowableProxy() != null) {
                line.append(ThrowableProxyUtil.asString(event.getThrowableProxy())).append('\n');
            }
            return line.toString();
        }

        /** Shortens package names to their first letter, from the left, until the name fits (the class name stays). */
        static String abbreviate(String name, int width) {
            if (name.length() <= width) {
                return name;
            }
            String[] parts = name.split("\\.");
            int length = name.length();
            for (int i = 0; i < parts.length - 1 && length > width; i++) {
                length -= parts[i].length() - 1;
                parts[i] = parts[i].substring(0, 1);
            }
            return String.join(".", parts);
        }
    }
}
