package io.walsink.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.fault.Fault;
import io.walsink.storage.fault.FaultInjectingObjectStore;
import io.walsink.storage.fault.Operation;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RetryingObjectStoreTest {
    private final InMemoryObjectStore memory = new InMemoryObjectStore("memory://t/");
    private final FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(memory);
    private final RecordingSleeper sleeper = new RecordingSleeper();
    private final RetryingObjectStore store =
            new RetryingObjectStore(faulty, RetryPolicy.DEFAULT, sleeper, new Random(7));

    @AfterEach
    void noInterruptLeaks() {
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    void transientFailureIsRetriedAndSucceeds() {
        memory.put("k", bytes("v"));
        faulty.inject(Fault.on(Operation.GET).nthCall(1).failTransiently());

        assertThat(store.get("k")).isEqualTo(bytes("v"));
        assertThat(faulty.calls(Operation.GET)).isEqualTo(2);
        assertThat(sleeper.waits()).hasSize(1);
        assertThat(sleeper.waits().get(0)).isBetween(Duration.ZERO, Duration.ofMillis(50));
    }

    @Test
    void retriesStopAtTheLimitWithTheLastCause() {
        faulty.inject(Fault.on(Operation.HEAD).everyCall().failTransiently());

        assertThatThrownBy(() -> store.head("wal/x"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("gave up after 4 attempts")
                .hasMessageContaining("memory://t/wal/x")
                .satisfies(e -> assertThat(((StorageException) e).isTransient()).isFalse())
                .cause()
                .hasMessageContaining("injected failure of HEAD call 4");
        assertThat(faulty.calls(Operation.HEAD)).isEqualTo(4);
        assertThat(sleeper.waits()).hasSize(3);
        assertThat(sleeper.waits().get(0)).isLessThanOrEqualTo(Duration.ofMillis(50));
        assertThat(sleeper.waits().get(1)).isLessThanOrEqualTo(Duration.ofMillis(100));
        assertThat(sleeper.waits().get(2)).isLessThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void configuredAttemptsAreHonoured() {
        RetryingObjectStore twice =
                new RetryingObjectStore(faulty, RetryPolicy.DEFAULT.withMaxAttempts(2), sleeper, new Random(1));
        faulty.inject(Fault.on(Operation.LIST).everyCall().failTransiently());

        assertThatThrownBy(() -> twice.list("", null, 10)).hasMessageContaining("gave up after 2 attempts");
        assertThat(faulty.calls(Operation.LIST)).isEqualTo(2);
    }

    @Test
    void nonTransientFailureIsNotRetried() {
        faulty.inject(Fault.on(Operation.PUT).nthCall(1).failPermanently());

        assertThatThrownBy(() -> store.put("hint", bytes("1")))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("injected failure of PUT call 1");
        assertThat(faulty.calls(Operation.PUT)).isEqualTo(1);
        assertThat(sleeper.waits()).isEmpty();
    }

    @Test
    void notFoundAndAlreadyExistsAreNotRetried() {
        memory.put("taken", bytes("x"));

        assertThatThrownBy(() -> store.get("absent")).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store.putIfAbsent("taken", bytes("y")))
                .isExactlyInstanceOf(ObjectAlreadyExistsException.class);
        assertThat(faulty.calls(Operation.GET) + faulty.calls(Operation.PUT_IF_ABSENT))
                .isEqualTo(2);
    }

    @Test
    void lostAcknowledgementThenAlreadyExistsIsAmbiguous() {
        faulty.inject(Fault.on(Operation.PUT_IF_ABSENT).nthCall(1).loseAcknowledgement());

        assertThatThrownBy(() -> store.putIfAbsent("wal/1.arrow", bytes("entry")))
                .isInstanceOf(AmbiguousWriteException.class)
                .hasMessageContaining("wal/1.arrow")
                .hasMessageContaining("unknown outcome");
        assertThat(memory.get("wal/1.arrow")).isEqualTo(bytes("entry"));
        assertThat(faulty.calls(Operation.PUT_IF_ABSENT)).isEqualTo(2);
    }

    @Test
    void unknownOutcomeThatDidNotLandIsResolvedByTheRetry() {
        RetryingObjectStore retrying = new RetryingObjectStore(
                new FailsOnceBeforeWriting(memory), RetryPolicy.DEFAULT, sleeper, new Random(3));

        retrying.putIfAbsent("wal/2.arrow", bytes("entry"));

        assertThat(memory.get("wal/2.arrow")).isEqualTo(bytes("entry"));
    }

    @Test
    void plainTransientFailureThenAlreadyExistsMeansAPeerWon() {
        memory.put("wal/3.arrow", bytes("peer"));
        faulty.inject(Fault.on(Operation.PUT_IF_ABSENT).nthCall(1).failTransiently());

        assertThatThrownBy(() -> store.putIfAbsent("wal/3.arrow", bytes("ours")))
                .isExactlyInstanceOf(ObjectAlreadyExistsException.class);
    }

    @Test
    void givingUpAfterAnUnknownOutcomeIsAmbiguous() {
        faulty.inject(Fault.on(Operation.PUT_IF_ABSENT).nthCall(1).loseAcknowledgement());
        faulty.inject(Fault.on(Operation.PUT_IF_ABSENT).everyCall().failTransiently());

        assertThatThrownBy(() -> store.putIfAbsent("wal/4.arrow", bytes("entry")))
                .isInstanceOf(AmbiguousWriteException.class)
                .hasMessageContaining("gave up after 4 attempts");
    }

    @Test
    void interruptionStopsRetrying() {
        RetryingObjectStore interrupted = new RetryingObjectStore(
                faulty,
                RetryPolicy.DEFAULT,
                d -> {
                    throw new InterruptedException();
                },
                new Random(1));
        faulty.inject(Fault.on(Operation.GET).everyCall().failTransiently());

        assertThatThrownBy(() -> interrupted.get("k"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("interrupted")
                .satisfies(e -> assertThat(((StorageException) e).isTransient()).isFalse());
        assertThat(Thread.interrupted()).isTrue();
        assertThat(faulty.calls(Operation.GET)).isEqualTo(1);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    /** The first put-if-absent fails with an unknown outcome without having written anything. */
    private static final class FailsOnceBeforeWriting extends ForwardingObjectStore {
        private boolean failed;

        FailsOnceBeforeWriting(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public void putIfAbsent(String key, byte[] data) {
            if (!failed) {
                failed = true;
                throw new OutcomeUnknownException(key, "timed out before the server stored anything", null);
            }
            delegate().putIfAbsent(key, data);
        }
    }
}
