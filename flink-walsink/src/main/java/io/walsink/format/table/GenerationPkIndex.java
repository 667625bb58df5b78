package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.lance.Dataset;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;

/**
 * The primary-key index of a flushed generation: a BTree over the key, its two files ({@code
 * page_lookup.lance}, {@code page_data.lance}) in {@code _pk_index/} of the generation folder.
 *
 * <p>Lance's MemWAL readers (Lance 10 inside LanceDB) open it for every flushed generation of a
 * scan and fail without it. It is not registered in any manifest: a reader finds it by its place.
 * Its row ids are offsets into the generation's single fragment, which is what lance-core's BTree
 * records for fragment 0, so the index lance-core builds on the generation dataset is copied there
 * as it is. Built before the generation is published, so a published generation always has it.
 */
@Internal
public final class GenerationPkIndex {
    /** The folder, relative to the generation folder. */
    public static final String FOLDER = "_pk_index/";

    static final List<String> FILES = List.of("page_lookup.lance", "page_data.lance");
    private static final String INDEX_NAME = "__walsink_pk";

    private GenerationPkIndex() {}

    /**
     * Builds the index of {@code generation} on {@code keyColumn} and places its files in {@code
     * _pk_index/} of {@code folderKey}.
     *
     * @param generation the generation's dataset, as just written (one fragment, id 0)
     * @param store the table's object store (keys relative to the table root)
     * @param folderKey the generation folder's key in {@code store}, ending in {@code /}
     * @return the bytes of the index files
     * @throws FormatException if the dataset is not one fragment 0, or lance-core's index lacks a file
     */
    public static long write(Dataset generation, String keyColumn, ObjectStore store, String folderKey) {
        if (!folderKey.endsWith("/")) {
            throw new IllegalArgumentException("folder key must end in '/': " + folderKey);
        }
        var fragments = generation.getFragments();
        if (fragments.size() != 1 || fragments.get(0).getId() != 0) {
            throw new FormatException(
                    folderKey,
                    "a generation must be one fragment with id 0 for its key index; it is " + fragments,
                    null);
        }
        Index index = generation.createIndex(
                List.of(keyColumn),
                IndexType.BTREE,
                Optional.of(INDEX_NAME),
                IndexParams.builder()
                        .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                        .build(),
                true);
        String built = folderKey + "_indices/" + index.uuid() + "/";
        Map<String, String> files = new TreeMap<>();
        for (ObjectMeta meta : store.listAll(built)) {
            files.put(meta.key().substring(built.length()), meta.key());
        }
        long bytes = 0;
        for (String name : FILES) {
            String source = files.get(name);
            if (source == null) {
                throw new FormatException(
                        built, "lance-core's BTree index has no " + name + " (it wrote " + files.keySet() + ")", null);
            }
            byte[] data = store.get(source);
            place(store, folderKey + FOLDER + name, data);
            bytes += data.length;
        }
        return bytes;
    }

    /** Creates {@code key}; an existing object with the same bytes (a retried write that landed) is fine. */
    private static void place(ObjectStore store, String key, byte[] data) {
        try {
            store.putIfAbsent(key, data);
        } catch (ObjectAlreadyExistsException | AmbiguousWriteException e) {
            if (!Arrays.equals(store.get(key), data)) {
                throw new FormatException(key, "holds other bytes than the key index being placed there", e);
            }
        }
    }
}
