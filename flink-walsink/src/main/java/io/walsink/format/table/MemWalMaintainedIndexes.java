package io.walsink.format.table;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.lance.Dataset;
import org.lance.index.Index;
import org.lance.operation.CreateIndex;

/**
 * Adds names to the MemWAL index's {@code maintained_indexes} (field 8 of {@code
 * MemWalIndexDetails}) on a table whose MemWAL is already initialised.
 *
 * <p>lance-core 7.0.0 sets the list only when it initialises the MemWAL, and only to indexes that
 * exist then; a vector index cannot exist on an empty table (it is trained on rows, and lance-core
 * cannot create an untrained one). So walsink creates the table with the indexes declared in its
 * schema metadata, builds them into every SSTable from the start, and once the compactor has built
 * a declared index on the base table, lists it here: one commit that replaces the {@code
 * __lance_mem_wal} index entry with the same details plus the name, every other field kept as
 * stored (merge progress included).
 */
@Internal
public final class MemWalMaintainedIndexes {
    private static final int ANY_TYPE_URL = 1;
    private static final int ANY_VALUE = 2;
    private static final int MAINTAINED_INDEXES = 8;

    private MemWalMaintainedIndexes() {}

    /**
     * Lists {@code name} as maintained, unless it already is; {@code base} must be at its latest
     * version and have an index of that name. Leaves {@code base} at its latest version.
     *
     * @return whether a commit was made
     */
    public static boolean add(Dataset base, String name, String location) {
        if (base.memWalIndexDetails()
                .map(d -> d.maintainedIndexes().contains(name))
                .orElse(false)) {
            return false;
        }
        if (base.getIndexes().stream().noneMatch(i -> i.name().equals(name))) {
            throw new IllegalStateException("index '" + name + "' must exist on " + location + " before it is listed");
        }
        Index memWal = base.getIndexes().stream()
                .filter(i -> MergedGenerations.MEM_WAL_INDEX.equals(i.name()))
                .findFirst()
                .orElseThrow(() -> new MissingMemWalIndexException(location, "the table has no MemWAL index", null));
        byte[] details = memWal.indexDetails()
                .orElseThrow(() -> new FormatException(location, "the MemWAL index has no details", null));
        Index.Builder replacement = Index.builder()
                .uuid(UUID.randomUUID())
                .fields(memWal.fields())
                .name(memWal.name())
                .datasetVersion(base.version())
                .indexDetails(withName(details, name, location))
                .indexVersion(memWal.indexVersion())
                .createdAt(Instant.now())
                .indexType(memWal.indexType());
        memWal.fragments().ifPresent(replacement::fragments);
        CreateIndex swap = CreateIndex.builder()
                .withNewIndices(List.of(replacement.build()))
                .withRemovedIndices(List.of(memWal))
                .build();
        try (var transaction = base.newTransactionBuilder().operation(swap).build()) {
            transaction.commit().close();
        }
        base.checkoutLatest();
        return true;
    }

    /** The {@code Any}-wrapped details with {@code name} appended to field 8, all else as stored. */
    static byte[] withName(byte[] any, String name, String location) {
        try {
            CodedInputStream in = CodedInputStream.newInstance(any);
            String typeUrl = null;
            byte[] value = null;
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case ANY_TYPE_URL -> typeUrl = in.readString();
                    case ANY_VALUE -> value = in.readByteArray();
                    default -> in.skipField(tag);
                }
            }
            if (typeUrl == null || value == null) {
                throw new FormatException(location, "the MemWAL index details are not a protobuf Any", null);
            }
            ByteArrayOutputStream details = new ByteArrayOutputStream();
            details.write(value); // fields may repeat in any order: an appended one joins the list
            CodedOutputStream field = CodedOutputStream.newInstance(details);
            field.writeString(MAINTAINED_INDEXES, name);
            field.flush();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CodedOutputStream wrapped = CodedOutputStream.newInstance(out);
            wrapped.writeString(ANY_TYPE_URL, typeUrl);
            wrapped.writeBytes(ANY_VALUE, ByteString.copyFrom(details.toByteArray()));
            wrapped.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new FormatException(location, "cannot re-encode the MemWAL index details: " + e.getMessage(), e);
        }
    }
}
