package io.walsink.table.catalog;

import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.table.ExistingTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.types.logical.LogicalType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ALTER TABLE on a walsink catalog table. What it can change is what every reader of the table can
 * follow: nullable columns added at the end. Rows written before (the base table's, SSTables', WAL
 * entries') read them as null ({@code AddedColumns}). Everything else is refused before anything is
 * written, naming why:
 *
 * <ul>
 *   <li>a type change, widening included: Lance's MemWAL readers (LanceDB's) refuse a column whose
 *       stored type differs from the table's, and SSTables keep the type they were written with;
 *   <li>a drop or a rename: WAL entries and SSTables keep their columns, matched by name, so a
 *       column added later under the old name would read the dropped column's values;
 *   <li>key and constraint changes: the key places every row in its shard.
 * </ul>
 */
final class TableEvolution {
    private static final Logger LOG = LoggerFactory.getLogger(TableEvolution.class);

    private TableEvolution() {}

    /** Checks every change, then adds the new columns to the base table in one commit. */
    static void apply(Warehouse warehouse, String catalog, String database, String name, List<TableChange> changes) {
        ExistingTable table = warehouse
                .open(database, name)
                .orElseThrow(() -> new ValidationException("There is no table '" + name + "' in catalog " + catalog));
        List<Field> added = added(table, name, changes);
        if (!added.isEmpty()) {
            try {
                warehouse.addColumns(database, name, added);
            } catch (IllegalArgumentException e) {
                throw new ValidationException("Cannot alter table '" + name + "': " + e.getMessage(), e);
            }
            LOG.info("walsink catalog '{}' added columns {} to table {}", catalog, added, name);
        }
    }

    private static List<Field> added(ExistingTable table, String name, List<TableChange> changes) {
        Set<String> columns = new HashSet<>();
        table.schema().getFields().forEach(f -> columns.add(f.getName()));
        List<Field> added = new ArrayList<>();
        for (TableChange change : changes) {
            if (change instanceof TableChange.AddColumn add) {
                added.add(addable(table, name, add, columns));
            } else {
                throw new ValidationException(refusal(table, name, change));
            }
        }
        return added;
    }

    private static Field addable(ExistingTable table, String name, TableChange.AddColumn add, Set<String> columns) {
        Column column = add.getColumn();
        String col = column.getName();
        if (!column.isPhysical()) {
            throw new ValidationException("Cannot add column '" + col + "' to table '" + name
                    + "': only physical columns are stored in a Lance table");
        }
        if (add.getPosition() != null && !isLast(add.getPosition(), table)) {
            throw new ValidationException("Cannot add column '" + col + "' to table '" + name + "' at "
                    + add.getPosition() + ": columns are added at the end (Lance keeps the order rows were"
                    + " written with)");
        }
        LogicalType type = column.getDataType().getLogicalType();
        if (!type.isNullable()) {
            throw new ValidationException("Cannot add column '" + col + "' to table '" + name + "' as NOT NULL: the"
                    + " rows written before it hold no value for it; add it nullable");
        }
        if (col.equals(WalStorageSchema.TOMBSTONE) || !columns.add(col)) {
            throw new ValidationException(
                    "Cannot add column '" + col + "' to table '" + name + "': the table has a column of that name");
        }
        try {
            return FlinkArrowTypes.toArrowField(col, type);
        } catch (RuntimeException e) {
            throw new ValidationException(
                    "Cannot add column '" + col + "' to table '" + name + "': " + e.getMessage(), e);
        }
    }

    private static boolean isLast(TableChange.ColumnPosition position, ExistingTable table) {
        List<Field> fields = table.schema().getFields();
        return position instanceof TableChange.After after
                && after.column().equals(fields.get(fields.size() - 1).getName());
    }

    private static String refusal(ExistingTable table, String name, TableChange change) {
        String prefix = "Cannot alter table '" + name + "': ";
        if (change instanceof TableChange.DropColumn drop) {
            String col = drop.getColumnName();
            return prefix
                    + (table.primaryKey().contains(col)
                            ? "column '" + col + "' is part of the primary key, which places every row in its shard"
                            : "dropping column '" + col + "' is not supported: WAL entries and SSTables written"
                                    + " before keep it, and a column added later under its name would read"
                                    + " their values");
        }
        if (change instanceof TableChange.ModifyPhysicalColumnType modify) {
            String col = modify.getOldColumn().getName();
            return prefix + "the type of column '" + col + "' cannot change from "
                    + modify.getOldColumn().getDataType() + " to " + modify.getNewType()
                    + ": Lance's MemWAL readers (LanceDB's) refuse a column whose stored type differs from the"
                    + " table's, and SSTables keep the type they were written with; add a new column instead";
        }
        if (change instanceof TableChange.ModifyColumnName rename) {
            return prefix + "renaming column '" + rename.getOldColumnName() + "' is not supported: WAL entries and"
                    + " SSTables match columns by name";
        }
        if (change instanceof TableChange.ModifyColumnPosition move) {
            return prefix + "column '" + move.getOldColumn().getName() + "' cannot move: Lance keeps the order rows"
                    + " were written with";
        }
        if (change instanceof TableChange.SetOption || change instanceof TableChange.ResetOption) {
            return prefix + "table options are fixed when the table is created (" + change
                    + "); set per-job options with an OPTIONS hint";
        }
        return prefix + "only ADD COLUMN is supported (nullable columns, at the end), not " + change;
    }
}
