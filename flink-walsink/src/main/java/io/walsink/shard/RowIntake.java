package io.walsink.shard;

import io.walsink.shard.io.ShardHealth;
import io.walsink.shard.io.ShardStats;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.MemtableSet;
import io.walsink.shard.memtable.RowKeys;
import io.walsink.shard.memtable.RowWriter;
import java.util.UUID;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way rows enter a {@link ShardWriter}: checked against the table, taken into the active
 * memtable, and the memtable frozen (the next generation started) once it is full. What happens
 * to the rows afterwards, the WAL append, the SSTable and its publication, is the writer's.
 *
 * <p>Runs on the owner's thread, like every call of the writer it serves.
 */
final class RowIntake {
    private static final Logger LOG = LoggerFactory.getLogger(RowIntake.class);

    private final TableContext ctx;
    private final UUID shardId;
    private final MemtableSet memtables;
    private final ShardHealth health;
    private final ShardStats stats;
    private final RowKeys rowKeys; // RowKeys.NONE unless the table generates row keys

    RowIntake(
            TableContext ctx,
            UUID shardId,
            MemtableSet memtables,
            ShardHealth health,
            ShardStats stats,
            RowKeys rowKeys) {
        this.rowKeys = rowKeys;
        this.ctx = ctx;
        this.shardId = shardId;
        this.memtables = memtables;
        this.health = health;
        this.stats = stats;
    }

    /** Upserts or deletes every row of {@code rows}. */
    void writeAll(VectorSchemaRoot rows, boolean delete) {
        health.check();
        ctx.checkBatch(rows, delete);
        // The whole batch is checked before any row is taken: a batch is accepted or refused whole.
        int count = rows.getRowCount();
        ctx.validator().checkKeysNotNull(rows, 0, count);
        FieldVector[] keyColumns = ctx.keyColumns(rows);
        for (int from = 0; from < count; ) {
            Memtable active = memtables.active();
            long room = Math.max(1, rowKeys.room(active.generation(), active.rows()));
            int to = from + (int) Math.min(ctx.bulkRange(active, rows, count - from), room);
            active.appendRange(rows, from, to, delete, keyColumns);
            rowsTaken(to - from, delete);
            from = to;
            freezeIfFull(active);
        }
    }

    /** Upserts or deletes one row of {@code rows}. */
    void write(VectorSchemaRoot rows, int row, boolean delete) {
        health.check();
        ctx.checkBatch(rows, delete);
        ctx.validator().checkKeysNotNull(rows, row, row + 1);
        Memtable active = memtables.active();
        active.append(rows, row, delete, ctx.keyColumns(rows));
        rowsTaken(1, delete);
        freezeIfFull(active);
    }

    /** Upserts or deletes the row {@code row} writes; true if the active memtable froze after it. */
    boolean write(RowWriter row, boolean delete) {
        health.check();
        if (delete) {
            ctx.checkDeletes();
        }
        Memtable active = memtables.active();
        active.appendRow(row, delete, ctx.validator());
        rowsTaken(1, delete);
        return freezeIfFull(active);
    }

    /** Freezes the active memtable (if it has rows) and starts the next generation. */
    void freezeActive() {
        health.check();
        Memtable active = memtables.active();
        if (active.rows() == 0) {
            return;
        }
        Memtable next = ctx.newMemtable(active.generation() + 1, rowKeys);
        next.sizeBatchesAfter(active);
        memtables.freezeActive(next);
        LOG.debug("Shard {} froze memtable generation {} ({} rows)", shardId, active.generation(), active.rows());
    }

    /**
     * Size checks cost a pass over the open batch's vectors, so they run after every 256th row;
     * rows are counted on every call. Bulk puts look at the same rows ({@link TableContext#bulkRange}).
     */
    private boolean freezeIfFull(Memtable active) {
        if (active.rows() >= ctx.config().memtableMaxRows()
                || rowKeys.room(active.generation(), active.rows()) <= 0
                || (active.rows() & 255) == 0 && ctx.memtableFull(active)) {
            freezeActive();
            return true;
        }
        return false;
    }

    private void rowsTaken(int count, boolean delete) {
        if (delete) {
            stats.deletesWritten += count;
        } else {
            stats.rowsWritten += count;
        }
    }
}
