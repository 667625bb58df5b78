package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.storage.fault.Fault;
import io.walsink.storage.fault.FaultInjectingObjectStore;
import io.walsink.storage.fault.Operation;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

/** Operators find retries in the logs: one WARN per retry, naming the object. */
class RetryLoggingTest {

    @Test
    void eachRetryIsLoggedAtWarnWithTheLocation() {
        List<LogEvent> events = new CopyOnWriteArrayList<>();
        AbstractAppender capture = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                events.add(event.toImmutable());
            }
        };
        capture.start();
        Logger logger = (Logger) LogManager.getLogger(RetryingObjectStore.class);
        logger.addAppender(capture);
        try {
            FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(new InMemoryObjectStore("memory://log/"));
            faulty.inject(Fault.on(Operation.PUT).nthCall(1).failTransiently());
            faulty.inject(Fault.on(Operation.PUT).nthCall(2).failTransiently());
            new RetryingObjectStore(faulty, RetryPolicy.DEFAULT, new RecordingSleeper(), new Random(5))
                    .put("manifest/version_hint.json", new byte[] {1});
        } finally {
            logger.removeAppender(capture);
        }
        assertThat(events).hasSize(2).allSatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getMessage().getFormattedMessage()).contains("memory://log/manifest/version_hint.json");
        });
    }
}
