package io.walsink.storage.fault;

import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fault rule of a {@link FaultInjectingObjectStore}: which calls it aims at, when it fires,
 * and what it does. Built fluently, for example
 * {@code Fault.on(Operation.PUT_IF_ABSENT).nthCall(3).loseAcknowledgement()} or
 * {@code Fault.onAnyOperation().withProbability(0.05, seed).failTransiently()}.
 *
 * <p>Thread-safe: the call counter is atomic and the random source is used under a lock, so a
 * seeded rule gives the same decisions for the same sequence of calls.
 */
public final class Fault {

    /** What happens when a rule fires. */
    public enum Effect {
        /** Throw a transient failure; the call does not reach the store. */
        FAIL_TRANSIENTLY,
        /** Throw a non-transient failure; the call does not reach the store. */
        FAIL_PERMANENTLY,
        /** Perform the write, then throw an "outcome unknown" failure as if the answer were lost. */
        LOSE_ACKNOWLEDGEMENT
    }

    private final Set<Operation> operations;
    private final long nth;
    private final double probability;
    private final Random random;
    private final Effect effect;
    private final AtomicLong matchingCalls = new AtomicLong();

    private Fault(Set<Operation> operations, long nth, double probability, Random random, Effect effect) {
        this.operations = operations;
        this.nth = nth;
        this.probability = probability;
        this.random = random;
        this.effect = effect;
    }

    /** A rule for calls of the given kinds. */
    public static Trigger on(Operation first, Operation... more) {
        return new Trigger(EnumSet.of(first, more));
    }

    /** A rule for every kind of call (a lost acknowledgement then applies to writes only). */
    public static Trigger onAnyOperation() {
        return new Trigger(EnumSet.allOf(Operation.class));
    }

    public Effect effect() {
        return effect;
    }

    /** Counts the call if it is aimed at, and tells whether the rule fires for it. */
    boolean firesFor(Operation operation) {
        if (!operations.contains(operation)) {
            return false;
        }
        long call = matchingCalls.incrementAndGet();
        if (nth > 0) {
            return call == nth;
        }
        synchronized (random) {
            return random.nextDouble() < probability;
        }
    }

    @Override
    public String toString() {
        return effect + " on " + operations + (nth > 0 ? " at call " + nth : " with probability " + probability);
    }

    /** Second step of the builder: when the rule fires. */
    public static final class Trigger {
        private final Set<Operation> operations;

        private Trigger(Set<Operation> operations) {
            this.operations = operations;
        }

        /** Fires once, on the {@code n}-th (1-based) call aimed at, counted from when the rule is added. */
        public Action nthCall(long n) {
            if (n < 1) {
                throw new IllegalArgumentException("n must be at least 1, got " + n);
            }
            return new Action(operations, n, 0, null);
        }

        /**
         * Fires on each call aimed at with probability {@code p}, decided by a {@link Random}
         * seeded with {@code seed}.
         */
        public Action withProbability(double p, long seed) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("probability must be in [0, 1], got " + p);
            }
            return new Action(operations, 0, p, new Random(seed));
        }

        /** Fires on every call aimed at. */
        public Action everyCall() {
            return new Action(operations, 0, 1.0, new Random(0));
        }
    }

    /** Last step of the builder: what the rule does. */
    public static final class Action {
        private final Set<Operation> operations;
        private final long nth;
        private final double probability;
        private final Random random;

        private Action(Set<Operation> operations, long nth, double probability, Random random) {
            this.operations = operations;
            this.nth = nth;
            this.probability = probability;
            this.random = random;
        }

        public Fault failTransiently() {
            return new Fault(operations, nth, probability, random, Effect.FAIL_TRANSIENTLY);
        }

        public Fault failPermanently() {
            return new Fault(operations, nth, probability, random, Effect.FAIL_PERMANENTLY);
        }

        public Fault loseAcknowledgement() {
            Set<Operation> writes = EnumSet.noneOf(Operation.class);
            for (Operation operation : operations) {
                if (operation.isWrite()) {
                    writes.add(operation);
                }
            }
            if (writes.isEmpty()) {
                throw new IllegalArgumentException("only writes have an acknowledgement to lose, not " + operations);
            }
            return new Fault(writes, nth, probability, random, Effect.LOSE_ACKNOWLEDGEMENT);
        }
    }
}
