package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A store held in memory, for unit tests and races: put-if-absent is atomic
 * ({@link ConcurrentSkipListMap#putIfAbsent}), so "exactly one winner" can be asserted.
 */
@Internal
public final class InMemoryObjectStore implements ObjectStore {
    private final ConcurrentNavigableMap<String, Stored> objects = new ConcurrentSkipListMap<>();
    private final String name;
    private final Clock clock;

    public InMemoryObjectStore() {
        this("memory://");
    }

    public InMemoryObjectStore(String name) {
        this(name, Clock.systemUTC());
    }

    /** @param clock stamps each write's {@link ObjectMeta#lastModified()} (tests pass a simulated one) */
    public InMemoryObjectStore(String name, Clock clock) {
        this.name = name;
        this.clock = clock;
    }

    private record Stored(byte[] data, Instant lastModified) {}

    @Override
    public void putIfAbsent(String key, byte[] data) {
        checkKey(key);
        if (objects.putIfAbsent(key, new Stored(data.clone(), clock.instant())) != null) {
            throw new ObjectAlreadyExistsException(name + key);
        }
    }

    @Override
    public void put(String key, byte[] data) {
        checkKey(key);
        objects.put(key, new Stored(data.clone(), clock.instant()));
    }

    @Override
    public byte[] get(String key) {
        Stored stored = objects.get(key);
        if (stored == null) {
            throw new ObjectNotFoundException(name + key);
        }
        return stored.data().clone();
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        byte[] data = get(key);
        int from = (int) Math.min(offset, data.length);
        int to = (int) Math.min((long) from + length, data.length);
        return Arrays.copyOfRange(data, from, to);
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        Stored stored = objects.get(key);
        return stored == null ? Optional.empty() : Optional.of(meta(key, stored));
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        List<ObjectMeta> page = new ArrayList<>();
        Map<String, Stored> tail =
                continuation == null ? objects.tailMap(prefix, true) : objects.tailMap(continuation, false);
        String last = null;
        for (Map.Entry<String, Stored> e : tail.entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            if (page.size() == maxKeys) {
                return new ListPage(page, last);
            }
            page.add(meta(e.getKey(), e.getValue()));
            last = e.getKey();
        }
        return new ListPage(page, null);
    }

    @Override
    public void delete(String key) {
        objects.remove(key);
    }

    @Override
    public String describe() {
        return name;
    }

    private static ObjectMeta meta(String key, Stored stored) {
        return new ObjectMeta(key, stored.data().length, stored.lastModified());
    }

    private void checkKey(String key) {
        if (key.isEmpty() || key.startsWith("/")) {
            throw new IllegalArgumentException("object key must be relative and non-empty: '" + key + "'");
        }
    }
}
