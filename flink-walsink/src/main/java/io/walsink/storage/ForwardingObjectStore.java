package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.util.List;
import java.util.Optional;

/**
 * A store that passes every call to another one: the base of wrappers (retries, fault injection,
 * test doubles), which override only the calls they change.
 *
 * <p>{@link #exists}, {@link #listAll} and {@link #listFolders} are deliberately not forwarded: the
 * interface derives them from {@link #head} and {@link #list}, so they go through the wrapper's
 * versions of those (a wrapper that wants the delegate's cheap folder listing forwards it itself).
 * {@link #removeLeftovers} is forwarded as it is (best effort, it never fails, so wrappers
 * neither retry nor fault it).
 */
@Internal
public abstract class ForwardingObjectStore implements ObjectStore {
    private final ObjectStore delegate;

    protected ForwardingObjectStore(ObjectStore delegate) {
        this.delegate = delegate;
    }

    /** The wrapped store. */
    public ObjectStore delegate() {
        return delegate;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        delegate.putIfAbsent(key, data);
    }

    @Override
    public void put(String key, byte[] data) {
        delegate.put(key, data);
    }

    @Override
    public byte[] get(String key) {
        return delegate.get(key);
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        return delegate.getRange(key, offset, length);
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        return delegate.head(key);
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        return delegate.list(prefix, continuation, maxKeys);
    }

    @Override
    public void delete(String key) {
        delegate.delete(key);
    }

    @Override
    public int removeLeftovers(String prefix) {
        return delegate.removeLeftovers(prefix);
    }

    @Override
    public List<ObjectMeta> listLeftovers(String prefix) {
        return delegate.listLeftovers(prefix);
    }

    @Override
    public void removeEmptyFolders(String prefix) {
        delegate.removeEmptyFolders(prefix);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
