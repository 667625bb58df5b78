package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.memwal.MergedGeneration;
import org.lance.merge.MergeInsertParams;

/**
 * A base-table commit that changes no row and records a shard's merge progress: a merge-insert of
 * no rows carrying the mark. For a shard whose generations were merged under another id (the
 * shard-id migration), so that the progress stays with the rows it describes.
 */
@Internal
public final class MergeMark {
    private MergeMark() {}

    /** Marks {@code shard} merged through {@code generation} in {@code base}, in one commit. */
    public static void commit(
            Dataset base, List<String> primaryKey, UUID shard, long generation, BufferAllocator allocator) {
        Schema key = new Schema(primaryKey.stream()
                .map(name -> base.getSchema().findField(name))
                .toList());
        // lance-core refuses a merge-insert that could change nothing; with no rows, "delete" deletes nothing.
        MergeInsertParams params = BaseMergeInsert.fenced(new MergeInsertParams(primaryKey))
                .withMatchedDelete()
                .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing)
                .markGenerationsAsMerged(List.of(new MergedGeneration(shard.toString(), generation)));
        BaseMergeInsert.run(base, params, new NoRows(allocator, key), allocator);
    }

    /** A stream of {@code schema} with no batch. */
    private static final class NoRows extends ArrowReader {
        private final Schema schema;

        NoRows(BufferAllocator allocator, Schema schema) {
            super(allocator);
            this.schema = schema;
        }

        @Override
        public boolean loadNextBatch() {
            return false;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() throws IOException {}

        @Override
        protected Schema readSchema() {
            return schema;
        }
    }
}
