package io.walsink.storage.fault;

import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.OutcomeUnknownException;
import io.walsink.storage.Sleeper;
import io.walsink.storage.StorageException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Wraps a store and injects failures, lost acknowledgements and latency, and counts calls per
 * {@link Operation}, so that failure paths (retries, ambiguous appends, failover) can be driven
 * deterministically. Faults can be added and cleared while the store is in use; all state is
 * thread-safe.
 *
 * <p>Every call is counted in {@link #calls(Operation)}; calls that reached the wrapped store and
 * succeeded there (including writes whose acknowledgement was then lost) in
 * {@link #completed(Operation)}. When several rules fire for one call the first one added wins;
 * every rule aimed at the call counts it.
 */
public final class FaultInjectingObjectStore extends ForwardingObjectStore {
    private final Sleeper sleeper;
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final Map<Operation, AtomicLong> calls = counters();
    private final Map<Operation, AtomicLong> completed = counters();
    private final AtomicLong injected = new AtomicLong();
    private volatile Duration latency = Duration.ZERO;
    private volatile AtomicLong budget; // faults still allowed, shared between stores; null: unlimited

    public FaultInjectingObjectStore(ObjectStore delegate) {
        this(delegate, Sleeper.SYSTEM);
    }

    /** @param sleeper used for the added latency, so tests can observe it without waiting */
    public FaultInjectingObjectStore(ObjectStore delegate, Sleeper sleeper) {
        super(delegate);
        this.sleeper = sleeper;
    }

    public FaultInjectingObjectStore inject(Fault fault) {
        faults.add(fault);
        return this;
    }

    public void clearFaults() {
        faults.clear();
    }

    /**
     * Lets at most {@code budget} faults fire, counting down a counter that several stores may
     * share (the stores of all attempts of one job), so a failure test is bound to end.
     */
    public FaultInjectingObjectStore faultBudget(AtomicLong budget) {
        this.budget = budget;
        return this;
    }

    /** Waits this long before every call. */
    public FaultInjectingObjectStore latency(Duration latency) {
        this.latency = latency;
        return this;
    }

    public long calls(Operation operation) {
        return calls.get(operation).get();
    }

    public long completed(Operation operation) {
        return completed.get(operation).get();
    }

    public long injectedFaults() {
        return injected.get();
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        run(Operation.PUT_IF_ABSENT, key, () -> {
            delegate().putIfAbsent(key, data);
            return null;
        });
    }

    @Override
    public void put(String key, byte[] data) {
        run(Operation.PUT, key, () -> {
            delegate().put(key, data);
            return null;
        });
    }

    @Override
    public byte[] get(String key) {
        return run(Operation.GET, key, () -> delegate().get(key));
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        return run(Operation.GET_RANGE, key, () -> delegate().getRange(key, offset, length));
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        return run(Operation.HEAD, key, () -> delegate().head(key));
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        return run(Operation.LIST, prefix, () -> delegate().list(prefix, continuation, maxKeys));
    }

    /** The delegate's own folder listing, faulted as a LIST. */
    @Override
    public java.util.SortedSet<String> listFolders(String prefix) {
        return run(Operation.LIST, prefix, () -> delegate().listFolders(prefix));
    }

    @Override
    public void delete(String key) {
        run(Operation.DELETE, key, () -> {
            delegate().delete(key);
            return null;
        });
    }

    private <T> T run(Operation operation, String key, Supplier<T> call) {
        long number = calls.get(operation).incrementAndGet();
        String location = delegate().describe() + key;
        delay(location);
        Fault fired = firstFiring(operation);
        AtomicLong allowed = budget;
        if (fired != null && allowed != null && allowed.getAndDecrement() <= 0) {
            fired = null;
        }
        if (fired != null && fired.effect() != Fault.Effect.LOSE_ACKNOWLEDGEMENT) {
            injected.incrementAndGet();
            throw new StorageException(
                    location,
                    "injected failure of " + operation + " call " + number,
                    fired.effect() == Fault.Effect.FAIL_TRANSIENTLY);
        }
        T result = call.get();
        completed.get(operation).incrementAndGet();
        if (fired != null) {
            injected.incrementAndGet();
            throw new OutcomeUnknownException(
                    location,
                    "injected loss of the acknowledgement of " + operation + " call " + number
                            + " (the write was applied)",
                    null);
        }
        return result;
    }

    private Fault firstFiring(Operation operation) {
        Fault first = null;
        for (Fault fault : faults) {
            if (fault.firesFor(operation) && first == null) {
                first = fault;
            }
        }
        return first;
    }

    private void delay(String location) {
        Duration wait = latency;
        if (wait.isZero()) {
            return;
        }
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(location, "interrupted during injected latency", false, e);
        }
    }

    private static Map<Operation, AtomicLong> counters() {
        Map<Operation, AtomicLong> counters = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
            counters.put(operation, new AtomicLong());
        }
        return counters;
    }
}
