package io.walsink.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** The lines one class logs while the capture is open (log4j, the tests' logging backend). */
public final class LogCapture implements AutoCloseable {
    private final List<LogEvent> events = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final AbstractAppender appender;
    private final Level level; // its configuration's level before, restored on close; null if not changed

    private LogCapture(Class<?> category, Level captured) {
        appender = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                events.add(event.toImmutable());
            }
        };
        appender.start();
        logger = (Logger) LogManager.getLogger(category);
        logger.addAppender(appender); // creates the logger's own configuration: set its level after
        if (captured != null) {
            // On the configuration, not the logger: a logger's own level is reset whenever the
            // context updates its loggers, as another capture creating its configuration does.
            LoggerConfig config = configOf(logger);
            level = config.getLevel();
            config.setLevel(captured);
            logger.getContext().updateLoggers();
        } else {
            level = null;
        }
    }

    private static LoggerConfig configOf(Logger logger) {
        return logger.getContext().getConfiguration().getLoggerConfig(logger.getName());
    }

    public static LogCapture of(Class<?> category) {
        return new LogCapture(category, null);
    }

    /** Also the lines below the configured level, down to {@code level}. */
    public static LogCapture of(Class<?> category, Level level) {
        return new LogCapture(category, level);
    }

    /** The events logged at {@code level}, for their parameters. */
    public List<LogEvent> events(Level level) {
        return events.stream().filter(e -> e.getLevel().equals(level)).toList();
    }

    /** The formatted messages logged at {@code level}. */
    public List<String> messages(Level level) {
        return events.stream()
                .filter(e -> e.getLevel().equals(level))
                .map(e -> e.getMessage().getFormattedMessage())
                .toList();
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        if (level != null) {
            configOf(logger).setLevel(level);
            logger.getContext().updateLoggers();
        }
        appender.stop();
    }
}
