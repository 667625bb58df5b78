package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.format.MemWalObject;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectContent;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL of one shard, {@code _mem_wal/{shard}/wal/} under a table's store: finding the tip,
 * reading entries upwards from a position, and creating an entry with put-if-absent.
 * Policy (retries, fencing, poisoning) belongs to the caller.
 */
@Internal
public final class WalLog {
    private static final Logger LOG = LoggerFactory.getLogger(WalLog.class);

    private final ObjectStore store;
    private final UUID shardId;
    private final WalEntryCodec codec;

    public WalLog(ObjectStore store, UUID shardId, WalEntryCodec codec) {
        this.store = Objects.requireNonNull(store, "store");
        this.shardId = Objects.requireNonNull(shardId, "shardId");
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    public UUID shardId() {
        return shardId;
    }

    /** Key of the entry at {@code position}, relative to the table root. */
    public String key(long position) {
        return TableLayout.walEntryKey(shardId, position);
    }

    /**
     * The next free position. Starts at {@code hint} (the manifest's last seen position, 0 for
     * none) and HEADs forward until a miss; if the hint itself is missing, LISTs the folder and
     * takes the highest position + 1 (1 when empty).
     */
    public long findTip(long hint) {
        if (hint < 1 || !store.exists(key(hint))) {
            long highest = highestListedPosition();
            LOG.debug("WAL tip of shard {} from listing: {}", shardId, highest + 1);
            return highest + 1;
        }
        long position = hint + 1;
        while (store.exists(key(position))) {
            position++;
        }
        return position;
    }

    private long highestListedPosition() {
        return highestPosition(listEntries(store, shardId));
    }

    /** The highest position of {@code entries} ({@link #listEntries}), 0 for none. */
    public static long highestPosition(NavigableMap<Long, ObjectMeta> entries) {
        return entries.isEmpty() ? 0 : Math.max(0, entries.lastKey());
    }

    /** The WAL entries of {@code shard} present in {@code store}, by position (one LIST). */
    public static NavigableMap<Long, ObjectMeta> listEntries(ObjectStore store, UUID shard) {
        NavigableMap<Long, ObjectMeta> entries = new TreeMap<>();
        for (ObjectMeta meta : store.listAll(TableLayout.walFolder(shard))) {
            MemWalObject object = TableLayout.classify(meta.key());
            if (object.kind() == MemWalObject.Kind.WAL_ENTRY) {
                entries.put(object.number(), meta);
            }
        }
        return entries;
    }

    /**
     * Creates the entry at {@code position}.
     *
     * @throws ObjectAlreadyExistsException if the position is taken (a peer or a lost acknowledgement)
     */
    public void append(long position, byte[] entry) {
        store.putIfAbsent(key(position), entry);
    }

    /** As {@link #append(long, byte[])}, the entry written by the store where it goes. */
    public void append(long position, ObjectContent entry) {
        store.putIfAbsent(key(position), entry);
    }

    /** The decoded entry at {@code position}, owned by the caller; empty if it does not exist. */
    public Optional<WalEntry> read(long position) {
        String key = key(position);
        byte[] bytes;
        try {
            bytes = store.get(key);
        } catch (ObjectNotFoundException e) {
            return Optional.empty();
        }
        return Optional.of(decode(position, bytes));
    }

    /** Decodes the bytes of the entry at {@code position}. */
    WalEntry decode(long position, byte[] bytes) {
        return codec.decode(location(key(position)), position, bytes);
    }

    /**
     * Entries {@code from..to} in order, with up to {@code depth} of them fetched ahead on threads
     * of the returned reader (close it).
     */
    public WalReadAhead readAhead(long from, long to, int depth) {
        return new WalReadAhead(this, store, from, to, depth);
    }

    private String location(String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }

    /**
     * Hands every entry from {@code first} upwards to {@code visitor} until a position is missing,
     * closing each entry after the visitor returns (copy what must outlive the call).
     *
     * @return the first missing position
     */
    public long readFrom(long first, Consumer<WalEntry> visitor) {
        long position = first;
        while (true) {
            Optional<WalEntry> entry = read(position);
            if (entry.isEmpty()) {
                return position;
            }
            try (WalEntry e = entry.get()) {
                visitor.accept(e);
            }
            position++;
        }
    }
}
