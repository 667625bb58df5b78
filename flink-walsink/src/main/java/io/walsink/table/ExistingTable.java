package io.walsink.table;

import io.walsink.annotation.Internal;
import io.walsink.format.table.AppendRowKey;
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
 * Lance table. An append table's generated row key ({@link AppendRowKey}) is left out of both:
 * users did not declare it, and SQL neither reads nor writes it.
 *
 * @param primaryKey key columns in key order; empty for an append table
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
            List<String> primaryKey = key.stream().map(LanceField::getName).toList();
            if (primaryKey.equals(List.of(AppendRowKey.COLUMN))) {
                return Optional.of(new ExistingTable(AppendRowKey.withoutRowKey(ds.getSchema()), List.of()));
            }
            return Optional.of(new ExistingTable(ds.getSchema(), primaryKey));
        } catch (TableNotFoundException missing) {
            return Optional.empty();
        }
    }
}
