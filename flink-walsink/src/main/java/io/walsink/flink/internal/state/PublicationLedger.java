package io.walsink.flink.internal.state;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which SSTables each checkpoint covers, until that checkpoint completes: then they may be
 * published. Per checkpoint, per bucket, the highest generation written before its barrier.
 */
final class PublicationLedger {
    private final TreeMap<Long, Map<Integer, Long>> byCheckpoint = new TreeMap<>();

    void covered(long checkpointId, Map<Integer, Long> upToGeneration) {
        byCheckpoint.put(checkpointId, Map.copyOf(upToGeneration));
    }

    /**
     * What the completion of {@code checkpointId} lets publish, per bucket. A completed checkpoint
     * subsumes earlier ones whose notification never came.
     */
    Map<Integer, Long> completed(long checkpointId) {
        Map<Integer, Long> publish = new HashMap<>();
        Iterator<Map<Integer, Long>> it =
                byCheckpoint.headMap(checkpointId, true).values().iterator();
        while (it.hasNext()) {
            it.next().forEach((bucket, generation) -> publish.merge(bucket, generation, Math::max));
            it.remove();
        }
        return publish;
    }

    /** Its SSTables stay unpublished and are covered again by the next checkpoint. */
    void aborted(long checkpointId) {
        byCheckpoint.remove(checkpointId);
    }
}
