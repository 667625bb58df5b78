package io.walsink.table.stream;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.storage.ObjectStore;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The error of a continuous read with a consumer id that needs something garbage collection
 * removed: its consumer record had expired (or was never written by a completed checkpoint), so
 * nothing kept it. Names the consumer, what is missing, when its records were last written and
 * the option that decides how long they count.
 */
final class ConsumerBehind {
    static final String EXPIRATION_OPTION = "sink.gc.consumer-expiration";

    private ConsumerBehind() {}

    static GarbageCollectedException of(
            GarbageCollectedException missing, ObjectStore store, String consumerId, List<String> splits) {
        String written;
        try {
            written = splits.stream()
                    .map(split -> {
                        ConsumerRecord r = ConsumerRecords.read(store, consumerId, split);
                        return split + ": " + (r == null ? "no record" : "written at " + r.writtenAt());
                    })
                    .collect(Collectors.joining(", "));
        } catch (RuntimeException e) {
            written = "records unreadable: " + e.getMessage();
        }
        GarbageCollectedException behind = new GarbageCollectedException(
                missing.location(),
                "the continuous read of consumer '" + consumerId + "' fell behind what garbage collection keeps: "
                        + missing.getMessage() + ". Its consumer records (" + written + ") keep what it needs only"
                        + " until they are older than the writers' " + EXPIRATION_OPTION + " (and everything"
                        + " younger than sink.gc.retention is kept anyway); a read stopped or failing for longer"
                        + " loses its place. Raise " + EXPIRATION_OPTION + ", or start the read again without its"
                        + " checkpoint");
        behind.addSuppressed(missing);
        return behind;
    }
}
