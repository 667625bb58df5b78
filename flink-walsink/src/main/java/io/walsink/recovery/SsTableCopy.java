package io.walsink.recovery;

import io.walsink.shard.io.SsTableFolder;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Copies an SSTable's folder under a new generation's folder name. A restore that rolled merged
 * rows back publishes its checkpoint's SSTables again above the base table's merge progress, which
 * only rises; an SSTable's path names its generation, so they are copies, not renamed entries.
 */
final class SsTableCopy {
    private SsTableCopy() {}

    /** The new folder's name; its Lance manifests are copied last, so a half-copied folder is no dataset. */
    static String copy(ObjectStore store, UUID shardId, String path, long generation) {
        String name = SsTableFolder.newName(generation, ThreadLocalRandom.current());
        String from = SsTableFolder.key(shardId, path);
        String to = SsTableFolder.key(shardId, name);
        List<ObjectMeta> objects = new ArrayList<>(store.listAll(from));
        objects.sort(Comparator.comparing((ObjectMeta m) -> m.key().contains("/_versions/")));
        for (ObjectMeta meta : objects) {
            store.put(to + meta.key().substring(from.length()), store.get(meta.key()));
        }
        return name;
    }
}
