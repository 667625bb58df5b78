package io.walsink.bench.support;

import io.walsink.shard.driver.ShardDrivers;
import io.walsink.shard.driver.ShardTimer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The timer of benchmarks that run the production driver on their own thread: remembers each
 * bucket's wake-up time and fires the due ticks when the loop polls it, as Flink's timer service
 * fires the operator's processing-time timers between records.
 */
public final class PolledTimer implements ShardTimer {
    private final Map<Integer, Long> due = new TreeMap<>();

    @Override
    public void wakeAt(int bucket, long dueMillis) {
        due.put(bucket, dueMillis);
    }

    /** Fires the tick of every bucket that is due at {@code nowMillis}. */
    public void fireIfDue(ShardDrivers drivers, long nowMillis) {
        List<Map.Entry<Integer, Long>> firing = null; // collected first: a tick asks for its next wake-up
        for (Iterator<Map.Entry<Integer, Long>> it = due.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Long> e = it.next();
            if (nowMillis >= e.getValue()) {
                if (firing == null) {
                    firing = new ArrayList<>();
                }
                firing.add(Map.entry(e.getKey(), e.getValue()));
                it.remove();
            }
        }
        if (firing != null) {
            firing.forEach(e -> drivers.tick(e.getKey(), e.getValue()));
        }
    }
}
