package io.walsink.format.consumer;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Where consumer records live: {@code _walsink/consumers/{id}/{split}.json}, one per split of a
 * continuous read, each replaced whole by an atomic put (a reader of it sees the old record or
 * the new one). One object per split, not per consumer, so that the readers of one consumer,
 * each holding some splits, never overwrite each other's progress, and a split moving to another
 * reader after a rescale takes its record with it.
 */
@Internal
public final class ConsumerRecords {
    private static final String JSON = ".json";

    private ConsumerRecords() {}

    /** A record as found, with the object it was read from. */
    public record Stored(ConsumerRecord record, ObjectMeta meta) {}

    public static String key(String consumerId, String split) {
        return TableLayout.consumerFolder(consumerId) + split + JSON;
    }

    public static void write(ObjectStore store, ConsumerRecord record) {
        store.put(key(record.consumerId(), record.split()), record.encode());
    }

    /** The record of one split, or null if there is none. */
    public static ConsumerRecord read(ObjectStore store, String consumerId, String split) {
        String key = key(consumerId, split);
        try {
            return ConsumerRecord.decode(store.get(key), location(store, key));
        } catch (ObjectNotFoundException e) {
            return null;
        }
    }

    /**
     * Every consumer record of the table. One removed between the listing and its read is left
     * out; other objects in the folder are not records and are ignored.
     *
     * @throws io.walsink.format.FormatException if a record does not decode: what it protects is
     *     unknown, so nothing may be judged unneeded
     */
    public static List<Stored> readAll(ObjectStore store) {
        List<Stored> all = new ArrayList<>();
        for (ObjectMeta meta : store.listAll(TableLayout.CONSUMER_FOLDER)) {
            String[] idAndName =
                    meta.key().substring(TableLayout.CONSUMER_FOLDER.length()).split("/", -1);
            if (idAndName.length != 2 || !idAndName[1].endsWith(JSON)) {
                continue;
            }
            try {
                all.add(new Stored(ConsumerRecord.decode(store.get(meta.key()), location(store, meta.key())), meta));
            } catch (ObjectNotFoundException removed) {
                // expired and removed by another run since the listing
            }
        }
        return all;
    }

    /** Removes one record, and its consumer's folder once empty. */
    public static void delete(ObjectStore store, ConsumerRecord record) {
        store.delete(key(record.consumerId(), record.split()));
        store.removeEmptyFolders(TableLayout.consumerFolder(record.consumerId()));
    }

    public static String location(ObjectStore store, String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }
}
