package io.walsink.table;

import io.walsink.annotation.Internal;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableNotFoundException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.schema.LanceField;

/**
 * The schema and primary key of the Lance table at a path, if there is one. Unlike
 * {@code LanceTables.open} a table without a key is accepted: a SELECT can read an append-only
 * Lance table.
 *
 * @param primaryKey key columns in key order; empty for an append-only table
 */
@Internal
public record ExistingTable(Schema schema, List<String> primaryKey) {

    /** The table at {@code config}'s path, opened with the lance-core options of its S3 settings. */
    public static Optional<ExistingTable> at(WalSinkTableConfig config) {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = LanceTables.openDataset(allocator, config.lanceUri(), config.lanceStorageOptions())) {
            List<LanceField> key = new ArrayList<>();
            for (LanceField f : ds.getLanceSchema().fields()) {
                if (f.isUnenforcedPrimaryKey()) {
                    key.add(f);
                }
            }
            key.sort(Comparator.comparingInt(
                    f -> f.getUnenforcedPrimaryKeyPosition().orElse(0)));
            return Optional.of(new ExistingTable(
                    ds.getSchema(), key.stream().map(LanceField::getName).toList()));
        } catch (TableNotFoundException missing) {
            return Optional.empty();
        }
    }
}
