package io.walsink.format.manifest;

import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectStore;
import java.util.function.Consumer;

/**
 * Test double around a real store: runs a hook before each write so a test can let a "peer"
 * act at the exact moment between our read and our put-if-absent, or fail a write.
 */
final class InterceptingStore extends ForwardingObjectStore {
    private volatile Consumer<String> beforePutIfAbsent = key -> {};
    private volatile Consumer<String> beforePut = key -> {};
    private volatile Consumer<String> beforeList = prefix -> {};

    InterceptingStore(ObjectStore delegate) {
        super(delegate);
    }

    /** Runs {@code hook} once, before the next put-if-absent, with the key. */
    void onceBeforePutIfAbsent(Consumer<String> hook) {
        beforePutIfAbsent = key -> {
            beforePutIfAbsent = k -> {};
            hook.accept(key);
        };
    }

    /** Runs {@code hook} once, before the next list, with the prefix. */
    void onceBeforeList(Consumer<String> hook) {
        beforeList = prefix -> {
            beforeList = p -> {};
            hook.accept(prefix);
        };
    }

    void beforeEveryPut(Consumer<String> hook) {
        beforePut = hook;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        beforePutIfAbsent.accept(key);
        delegate().putIfAbsent(key, data);
    }

    @Override
    public void put(String key, byte[] data) {
        beforePut.accept(key);
        delegate().put(key, data);
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        beforeList.accept(prefix);
        return delegate().list(prefix, continuation, maxKeys);
    }
}
