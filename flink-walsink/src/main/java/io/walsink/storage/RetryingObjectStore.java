package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.time.Duration;
import java.util.Optional;
import java.util.SortedSet;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries transient failures of another store with {@link RetryPolicy}; everything else passes
 * through unchanged.
 *
 * <p>Put-if-absent needs care: once an attempt failed with {@link OutcomeUnknownException}, our
 * own write may already be stored, so a later "already exists" is not proof that a peer won. Such
 * a call ends with {@link AmbiguousWriteException}, never with success or
 * {@link ObjectAlreadyExistsException}. Giving up after such an attempt is ambiguous too.
 *
 * <p>When the attempts run out the call fails with a non-transient {@link StorageException} that
 * names the number of attempts and wraps the last failure (non-transient, so that an outer retry
 * layer does not multiply the attempts).
 */
@Internal
public final class RetryingObjectStore extends ForwardingObjectStore {
    private static final Logger LOG = LoggerFactory.getLogger(RetryingObjectStore.class);

    private final RetryPolicy policy;
    private final Sleeper sleeper;
    private final RandomGenerator random;

    public RetryingObjectStore(ObjectStore delegate, RetryPolicy policy) {
        this(delegate, policy, Sleeper.SYSTEM, RandomGenerator.getDefault());
    }

    public RetryingObjectStore(ObjectStore delegate, RetryPolicy policy, Sleeper sleeper, RandomGenerator random) {
        super(delegate);
        this.policy = policy;
        this.sleeper = sleeper;
        this.random = random;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        putIfAbsentRetried(() -> delegate().putIfAbsent(key, data));
    }

    /** As the array put: each attempt writes the content again, as the store takes it. */
    @Override
    public void putIfAbsent(String key, ObjectContent content) {
        putIfAbsentRetried(() -> delegate().putIfAbsent(key, content));
    }

    private void putIfAbsentRetried(Runnable put) {
        StorageException outcomeUnknown = null;
        StorageException last = null;
        for (int attempt = 1; attempt <= policy.maxAttempts(); attempt++) {
            try {
                put.run();
                return;
            } catch (ObjectAlreadyExistsException e) {
                if (outcomeUnknown != null) {
                    throw new AmbiguousWriteException(
                            e.location(),
                            "exists after an attempt with an unknown outcome"
                                    + " (our own write or a peer's); attempt " + attempt + ", earlier failure: "
                                    + outcomeUnknown.getMessage(),
                            e);
                }
                throw e;
            } catch (StorageException e) {
                if (!e.isTransient()) {
                    throw e;
                }
                if (e instanceof OutcomeUnknownException) {
                    outcomeUnknown = e;
                }
                last = e;
                try {
                    pauseUnlessLast("putIfAbsent", attempt, e);
                } catch (StorageException interrupted) {
                    if (outcomeUnknown != null) {
                        throw new AmbiguousWriteException(
                                e.location(),
                                "interrupted after an attempt that may have" + " written the object",
                                interrupted);
                    }
                    throw interrupted;
                }
            }
        }
        if (outcomeUnknown != null) {
            throw new AmbiguousWriteException(
                    last.location(),
                    "gave up after " + policy.maxAttempts()
                            + " attempts, one of which may have written the object; last failure: " + last.getMessage(),
                    last);
        }
        throw exhausted(last);
    }

    @Override
    public void put(String key, byte[] data) {
        call("put", () -> {
            delegate().put(key, data);
            return null;
        });
    }

    @Override
    public byte[] get(String key) {
        return call("get", () -> delegate().get(key));
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        return call("getRange", () -> delegate().getRange(key, offset, length));
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        return call("head", () -> delegate().head(key));
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        return call("list", () -> delegate().list(prefix, continuation, maxKeys));
    }

    @Override
    public SortedSet<String> listFolders(String prefix) {
        return call("list", () -> delegate().listFolders(prefix));
    }

    @Override
    public void delete(String key) {
        call("delete", () -> {
            delegate().delete(key);
            return null;
        });
    }

    private <T> T call(String operation, Supplier<T> action) {
        StorageException last = null;
        for (int attempt = 1; attempt <= policy.maxAttempts(); attempt++) {
            try {
                return action.get();
            } catch (StorageException e) {
                if (!e.isTransient()) {
                    throw e;
                }
                last = e;
                pauseUnlessLast(operation, attempt, e);
            }
        }
        throw exhausted(last);
    }

    private void pauseUnlessLast(String operation, int attempt, StorageException failure) {
        if (attempt == policy.maxAttempts()) {
            return;
        }
        Duration delay = policy.delayBeforeRetry(attempt, random);
        LOG.warn(
                "{} of {} failed (attempt {} of {}), retrying in {} ms: {}",
                operation,
                failure.location(),
                attempt,
                policy.maxAttempts(),
                delay.toMillis(),
                failure.getMessage());
        try {
            sleeper.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            StorageException interrupted = new StorageException(
                    failure.location(), "interrupted while waiting to retry " + operation, false, e);
            interrupted.addSuppressed(failure);
            throw interrupted;
        }
    }

    private StorageException exhausted(StorageException last) {
        return new StorageException(
                last.location(),
                "gave up after " + policy.maxAttempts() + " attempts; last failure: " + last.getMessage(),
                false,
                last);
    }
}
