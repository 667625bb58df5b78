package io.walsink.flink.internal;

import io.walsink.flink.internal.memory.SinkAllocators;
import io.walsink.testing.LogCapture;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;

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

    private final LogCapture log = LogCapture.of(SinkAllocators.class, Level.DEBUG);

    private AllocatorLog() {}

    static AllocatorLog capture() {
        return new AllocatorLog();
    }

    /** Owners of the allocators opened, in order. */
    List<String> opened() {
        return log.events(Level.DEBUG).stream()
                .filter(e -> format(e).contains("Arrow allocator opened"))
                .map(e -> (String) e.getMessage().getParameters()[0])
                .toList();
    }

    /** The allocators closed with nothing outstanding, in order. */
    List<Closed> closed() {
        return log.events(Level.INFO).stream()
                .filter(e -> format(e).contains("Arrow allocator closed"))
                .map(e -> {
                    Object[] p = e.getMessage().getParameters();
                    return new Closed((String) p[0], ((Number) p[1]).longValue(), ((Number) p[2]).longValue());
                })
                .toList();
    }

    /** What was logged of allocators closed with buffers still allocated. */
    List<String> leaks() {
        return log.messages(Level.ERROR);
    }

    private static String format(LogEvent event) {
        return event.getMessage().getFormat();
    }

    @Override
    public void close() {
        log.close();
    }
}
