package io.walsink.flink.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * What {@link SinkAllocators} logged while open: the allocators opened, closed (with the most each
 * held) and closed with buffers outstanding. Production keeps no count of its allocators; its log
 * is the record, so the tests that check memory is returned read that.
 *
 * <pre>{@code
 * try (AllocatorLog log = AllocatorLog.capture()) { ... run a job ...; log.closed() }
 * }</pre>
 */
final class AllocatorLog implements AutoCloseable {
    /** An allocator closed with nothing outstanding. */
    record Closed(String owner, long peak, long cap) {}

    private final List<LogEvent> events = new CopyOnWriteArrayList<>();
    private final Logger logger = (Logger) LogManager.getLogger(SinkAllocators.class);
    private final Level level;
    private final boolean additive;
    private final AbstractAppender appender;

    private AllocatorLog() {
        appender = new AbstractAppender("allocator-log", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                events.add(event.toImmutable());
            }
        };
        appender.start();
        level = logger.getLevel();
        additive = logger.isAdditive();
        logger.addAppender(appender); // creates the logger's own configuration: set its level after
        logger.setLevel(Level.DEBUG);
        logger.setAdditive(false); // DEBUG lines for this capture, not for the console
    }

    static AllocatorLog capture() {
        return new AllocatorLog();
    }

    /** Owners of the allocators opened, in order. */
    List<String> opened() {
        return events.stream()
                .filter(e -> e.getLevel() == Level.DEBUG && format(e).contains("Arrow allocator opened"))
                .map(e -> (String) e.getMessage().getParameters()[0])
                .toList();
    }

    /** The allocators closed with nothing outstanding, in order. */
    List<Closed> closed() {
        return events.stream()
                .filter(e -> e.getLevel() == Level.INFO && format(e).contains("Arrow allocator closed"))
                .map(e -> {
                    Object[] p = e.getMessage().getParameters();
                    return new Closed((String) p[0], ((Number) p[1]).longValue(), ((Number) p[2]).longValue());
                })
                .toList();
    }

    /** What was logged of allocators closed with buffers still allocated. */
    List<String> leaks() {
        return events.stream()
                .filter(e -> e.getLevel() == Level.ERROR)
                .map(e -> e.getMessage().getFormattedMessage())
                .toList();
    }

    private static String format(LogEvent event) {
        return event.getMessage().getFormat();
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        logger.setAdditive(additive);
        logger.setLevel(level);
        appender.stop();
    }
}
