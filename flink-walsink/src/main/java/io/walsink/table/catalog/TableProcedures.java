package io.walsink.table.catalog;

import io.walsink.annotation.Internal;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.RollbackResult;
import io.walsink.maintenance.TableRollback;
import io.walsink.maintenance.TableTags;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.maintenance.gc.GcSummary;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.util.TimeUtils;

/**
 * The catalog's procedures, called as {@code CALL lake.sys.<name>(...)}: the maintenance a user
 * otherwise runs with the command-line tool, and the base table's tags, which LanceDB reads with
 * {@code checkout(tag)} and which the cleanup keeps. Each prints what it did, one row a line.
 */
@Internal // public, with public procedure classes, only because Flink's planner calls them reflectively
public final class TableProcedures {
    /** The database name procedures are called under, as in other lakehouse catalogs. */
    static final String DATABASE = "sys";

    private TableProcedures() {}

    static Map<String, Procedure> of(Warehouse warehouse) {
        Map<String, Procedure> procedures = new TreeMap<>();
        procedures.put("compact", new Compact(warehouse));
        procedures.put("gc", new CollectGarbage(warehouse));
        procedures.put("create_tag", new CreateTag(warehouse));
        procedures.put("delete_tag", new DeleteTag(warehouse));
        procedures.put("list_tags", new ListTags(warehouse));
        // ROLLBACK is reserved in Flink SQL: `rollback` needs back quotes, rollback_to does not.
        procedures.put("rollback", new Rollback(warehouse));
        procedures.put("rollback_to", new Rollback(warehouse));
        procedures.put("rollback_to_tag", new RollbackToTag(warehouse));
        return procedures;
    }

    /**
     * The path of an existing table: {@code 'events'} in the warehouse root (the default database),
     * {@code 'db.events'} in database {@code db} when that database holds it.
     */
    private static String existing(Warehouse warehouse, String table) {
        int dot = table.indexOf('.');
        if (dot > 0) {
            String database = table.substring(0, dot);
            String name = table.substring(dot + 1);
            if (warehouse.exists(database) && warehouse.tableNames(database).contains(name)) {
                return warehouse.path(database, name);
            }
        }
        if (!warehouse.tableNames(null).contains(table)) {
            throw new ValidationException("There is no table '" + table + "' in the warehouse " + warehouse);
        }
        return warehouse.path(null, table);
    }

    /** {@code compact(table)}: merges the published generations into the base table, as {@code walsink compact}. */
    public static final class Compact implements Procedure {
        private final Warehouse warehouse;

        Compact(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table) {
            String path = existing(warehouse, table);
            CompactionResult result = Compactor.compact(path, warehouse.s3(), CompactorOptions.defaults());
            return result.describe(table).toArray(String[]::new);
        }
    }

    /** {@code gc(table [, retention])}: removes MemWAL history older than the retention (default 1 h), as {@code walsink gc}. */
    public static final class CollectGarbage implements Procedure {
        private final Warehouse warehouse;

        CollectGarbage(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table) throws Exception {
            return call(context, table, "1 h");
        }

        public String[] call(ProcedureContext context, String table, String retention) throws Exception {
            String path = existing(warehouse, table);
            Duration age = TimeUtils.parseDuration(retention);
            if (age.isZero() || age.isNegative()) {
                throw new ValidationException("gc: the retention must be positive, was '" + retention + "'");
            }
            GarbageCollector.Options options = GarbageCollector.Options.retaining(age);
            GcSummary summary;
            try (ObjectStore store = ObjectStores.open(path, warehouse.s3())) {
                summary = new GarbageCollector(store, options).collect();
            }
            return new String[] {summary.describe(table, options.retention(), options.consumerExpiration())};
        }
    }

    /** {@code create_tag(table, tag [, version])}: names a base table version (default: the latest). */
    public static final class CreateTag implements Procedure {
        private final Warehouse warehouse;

        CreateTag(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table, String tag) {
            return call(context, table, tag, null);
        }

        /** @param version null for the latest */
        public String[] call(ProcedureContext context, String table, String tag, Long version) {
            long tagged = tags(warehouse, table).create(tag, version);
            return new String[] {"Tagged version " + tagged + " of " + table + " as '" + tag + "'"};
        }
    }

    /** {@code delete_tag(table, tag)}: the version becomes subject to the cleanup's retention again. */
    public static final class DeleteTag implements Procedure {
        private final Warehouse warehouse;

        DeleteTag(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table, String tag) {
            long version = tags(warehouse, table).delete(tag);
            return new String[] {"Deleted tag '" + tag + "' of " + table + " (version " + version + ")"};
        }
    }

    /** {@code list_tags(table)}: each tag and its version, by name. */
    public static final class ListTags implements Procedure {
        private final Warehouse warehouse;

        ListTags(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table) {
            return tags(warehouse, table).list().entrySet().stream()
                    .map(t -> t.getKey() + " = version " + t.getValue())
                    .toArray(String[]::new);
        }
    }

    /**
     * {@code rollback_to(table, version [, force])}, also {@code `rollback`}: the table reads as base table version {@code
     * version} alone, and writes go on from there ({@link TableRollback}). Refused while a shard holds
     * rows only in its WAL (unless {@code force}) or while the maintenance lease is held.
     */
    public static final class Rollback implements Procedure {
        private final Warehouse warehouse;

        Rollback(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table, Long version) {
            return call(context, table, version, false);
        }

        public String[] call(ProcedureContext context, String table, Long version, Boolean force) {
            if (version == null) {
                throw new ValidationException("rollback: name the base table version to roll " + table + " back to");
            }
            TableRollback rollback = TableRollback.of(existing(warehouse, table), warehouse.s3());
            return rolledBack(table, () -> rollback.toVersion(version, Boolean.TRUE.equals(force)));
        }
    }

    /** {@code rollback_to_tag(table, tag [, force])}: as {@code rollback_to}, to the version the tag names. */
    public static final class RollbackToTag implements Procedure {
        private final Warehouse warehouse;

        RollbackToTag(Warehouse warehouse) {
            this.warehouse = warehouse;
        }

        public String[] call(ProcedureContext context, String table, String tag) {
            return call(context, table, tag, false);
        }

        public String[] call(ProcedureContext context, String table, String tag, Boolean force) {
            TableRollback rollback = TableRollback.of(existing(warehouse, table), warehouse.s3());
            return rolledBack(table, () -> rollback.toTag(tag, Boolean.TRUE.equals(force)));
        }
    }

    private static String[] rolledBack(String table, Supplier<RollbackResult> rollback) {
        try {
            return rollback.get().describe(table).toArray(String[]::new);
        } catch (IllegalArgumentException refused) {
            throw new ValidationException(refused.getMessage(), refused);
        }
    }

    private static TableTags tags(Warehouse warehouse, String table) {
        return TableTags.of(existing(warehouse, table), warehouse.s3());
    }
}
