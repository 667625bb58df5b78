package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The object-store operations the MemWAL format needs, and nothing more.
 *
 * <p>Keys are relative to the store's root (the table location), use {@code /} as separator and
 * never start with one. Every operation either completes or throws a {@link StorageException};
 * the subtypes tell apart the outcomes a caller must act on differently.
 */
@Internal
public interface ObjectStore extends AutoCloseable {

    /**
     * Creates {@code key} atomically only if it does not exist.
     *
     * @throws ObjectAlreadyExistsException if the key exists; its content is left unchanged
     * @throws AmbiguousWriteException if the outcome is unknown (for example the acknowledgement
     *     of a write that may have landed was lost)
     */
    void putIfAbsent(String key, byte[] data);

    /**
     * As {@link #putIfAbsent(String, byte[])}, the bytes {@code content} writes. The default
     * collects them in one array; a store that can take them as they come (a local file)
     * overrides it. Wrappers that change puts need not: the default goes through their
     * {@code putIfAbsent(String, byte[])}.
     */
    default void putIfAbsent(String key, ObjectContent content) {
        putIfAbsent(key, ByteArrayChannel.collect(content));
    }

    /** Creates or replaces {@code key} whole (readers see the old or the new bytes): best-effort hints and consumer records. */
    void put(String key, byte[] data);

    /** Whole object. @throws ObjectNotFoundException if absent */
    byte[] get(String key);

    /**
     * Bytes {@code [offset, offset + length)}, shorter if the object ends first.
     *
     * @throws ObjectNotFoundException if absent
     */
    byte[] getRange(String key, long offset, int length);

    /** Size of the object, or empty if it does not exist. */
    Optional<ObjectMeta> head(String key);

    default boolean exists(String key) {
        return head(key).isPresent();
    }

    /**
     * One page of the keys that start with {@code prefix}, in ascending key order. Complete: every
     * object that exists throughout the call is listed (one created or removed meanwhile may or
     * may not be); a store that cannot tell throws instead of returning a short page.
     *
     * @param continuation null for the first page, else {@link ListPage#continuation()} of the
     *     previous page
     */
    ListPage list(String prefix, String continuation, int maxKeys);

    /** Every key under {@code prefix}, following pages to the end. */
    default List<ObjectMeta> listAll(String prefix) {
        List<ObjectMeta> all = new ArrayList<>();
        String continuation = null;
        do {
            ListPage page = list(prefix, continuation, 1000);
            all.addAll(page.objects());
            continuation = page.continuation();
        } while (continuation != null);
        return all;
    }

    /**
     * The folders directly under {@code prefix} (which ends with '/', or is empty for the root): the key prefixes {@code
     * prefix + name + "/"} of the keys below it, in key order. The default derives them from a full
     * listing; a store that can list one level (S3's delimiter, a directory read) does so, which is
     * what makes finding a table's shards cheap however much history they hold. A store may also
     * return folders that hold no object.
     */
    default SortedSet<String> listFolders(String prefix) {
        SortedSet<String> folders = new TreeSet<>();
        for (ObjectMeta meta : listAll(prefix)) {
            int slash = meta.key().indexOf('/', prefix.length());
            if (slash >= 0) {
                folders.add(meta.key().substring(0, slash + 1));
            }
        }
        return folders;
    }

    /** Removes {@code key}; removing an absent key is not an error. */
    void delete(String key);

    /**
     * Removes what interrupted writes left under {@code prefix} that is not an object, e.g. the
     * temporary files of a local store's puts whose writer was killed, once they are old enough
     * to be abandoned. Never touches an object; best effort, never throws. Stores whose writes
     * leave nothing behind (S3, memory) do nothing; wrappers forward it.
     *
     * @return how many leftovers were removed
     */
    default int removeLeftovers(String prefix) {
        return 0;
    }

    /**
     * What {@link #removeLeftovers} would consider under {@code prefix}, whatever its age: keys
     * that {@link #delete} removes, with sizes and modification times. For garbage collection,
     * which applies its own retention and can report before it removes. Empty for stores whose
     * writes leave nothing behind; wrappers forward it.
     */
    default List<ObjectMeta> listLeftovers(String prefix) {
        return List.of();
    }

    /**
     * Removes the folders under {@code prefix} (a folder key ending in {@code /}, itself
     * included) that hold nothing any more, after their objects were deleted. Only stores with
     * real folders (local files) have any; best effort, never throws; wrappers forward it.
     */
    default void removeEmptyFolders(String prefix) {}

    /** The root of this store as a user would write it, for messages (never holds secrets). */
    String describe();

    @Override
    default void close() {}
}
