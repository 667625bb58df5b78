package io.walsink.storage;

import io.walsink.annotation.Internal;
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
    private final ConcurrentNavigableMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
    private final String name;

    public InMemoryObjectStore() {
        this("memory://");
    }

    public InMemoryObjectStore(String name) {
        this.name = name;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        checkKey(key);
        if (objects.putIfAbsent(key, data.clone()) != null) {
            throw new ObjectAlreadyExistsException(name + key);
        }
    }

    @Override
    public void put(String key, byte[] data) {
        checkKey(key);
        objects.put(key, data.clone());
    }

    @Override
    public byte[] get(String key) {
        byte[] data = objects.get(key);
        if (data == null) {
            throw new ObjectNotFoundException(name + key);
        }
        return data.clone();
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
        byte[] data = objects.get(key);
        return data == null ? Optional.empty() : Optional.of(new ObjectMeta(key, data.length));
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        List<ObjectMeta> page = new ArrayList<>();
        Map<String, byte[]> tail =
                continuation == null ? objects.tailMap(prefix, true) : objects.tailMap(continuation, false);
        String last = null;
        for (Map.Entry<String, byte[]> e : tail.entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            if (page.size() == maxKeys) {
                return new ListPage(page, last);
            }
            page.add(new ObjectMeta(e.getKey(), e.getValue().length));
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

    private void checkKey(String key) {
        if (key.isEmpty() || key.startsWith("/")) {
            throw new IllegalArgumentException("object key must be relative and non-empty: '" + key + "'");
        }
    }
}
