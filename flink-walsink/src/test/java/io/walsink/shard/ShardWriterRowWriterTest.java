package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.memtable.InvalidInputException;
import io.walsink.shard.memtable.LongKeyIndexTest;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code write(RowWriter, delete)}, where the source writes each row straight into the memtable,
 * leaves the shard exactly as {@code write(batch, row, delete)} of the same rows does; a row that
 * fails while being written does not count and leaves nothing behind.
 */
class ShardWriterRowWriterTest {
    @TempDir
    Path dir;

    /** Writes row {@code row} of {@code source} column by column, as a source record would. */
    private static final class CopyingRowWriter implements RowWriter {
        VectorSchemaRoot source;
        int row;

        @Override
        public void writeRow(FieldVector[] columns, int at) {
            List<FieldVector> from = source.getFieldVectors();
            for (int c = 0; c < from.size(); c++) {
                columns[c].copyFromSafe(row, at, from.get(c));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rows", "bytes", "batches"})
    void directRowsFreezeWhereStagedRowsFreezeAndHoldTheSameRows(String limit) {
        long seed = LongKeyIndexTest.seed("directRowsFreezeWhereStagedRowsFreezeAndHoldTheSameRows " + limit);
        Random random = new Random(seed);
        ShardWriterConfig.Builder config = ShardWriterBulkPutTest.limitedBy(limit);
        try (ShardFixture directTable = new ShardFixture(dir.resolve("direct"), WalSchemaProfile.SPEC, config.build());
                ShardFixture stagedTable =
                        new ShardFixture(dir.resolve("staged"), WalSchemaProfile.SPEC, config.build());
                ShardWriter direct = directTable.open();
                ShardWriter staged = stagedTable.open()) {
            CopyingRowWriter writer = new CopyingRowWriter();
            for (int b = 0; b < 30; b++) {
                int count = random.nextInt(600);
                long[] ids = new long[count];
                String[] names = new String[count];
                for (int r = 0; r < count; r++) {
                    ids[r] = random.nextInt(500) - 250;
                    names[r] = random.nextInt(5) == 0 ? null : "value " + "x".repeat(random.nextInt(40));
                }
                try (VectorSchemaRoot in = directTable.rows(ids, names)) {
                    writer.source = in;
                    for (int r = 0; r < count; r++) {
                        boolean delete = random.nextInt(6) == 0;
                        writer.row = r;
                        direct.write(writer, delete);
                        staged.write(in, r, delete);
                    }
                }
                assertThat(direct.frozenMemtables())
                        .as("batch %d, seed %d", b, seed)
                        .isEqualTo(staged.frozenMemtables());
                assertThat(direct.unflushedBytes())
                        .as("batch %d, seed %d", b, seed)
                        .isEqualTo(staged.unflushedBytes());
            }
            ShardWriterBulkPutTest.assertSameShards(direct, staged, seed);
        }
    }

    /** A frozen memtable's successor starts at the batch size it reached (no regrowth from a guess). */
    @Test
    void theMemtableAfterAFreezeStartsWithFullSizedBatches() {
        try (ShardFixture table = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
                ShardWriter shard = table.open()) {
            int full = ShardWriterConfig.DEFAULT_BATCH_MAX_ROWS;
            long[] id = {0};
            RowWriter row = (columns, at) -> {
                ((BigIntVector) columns[0]).setSafe(at, id[0]++);
                ((VarCharVector) columns[1]).setSafe(at, "a name of 20 bytes..".getBytes());
            };
            for (int r = 0; r < 3 * full; r++) {
                shard.write(row, false);
            }
            shard.freezeActive();
            shard.write(row, false);
            Memtable active = shard.memtables().active();
            active.sealOpenBatch();

            assertThat(active.generation()).isEqualTo(2);
            VectorSchemaRoot first = active.sealedBatches().get(0);
            assertThat(first.getVector(0).getValueCapacity()).isGreaterThanOrEqualTo(full);
            assertThat(((VarCharVector) first.getVector(1)).getDataBuffer().capacity())
                    .isGreaterThanOrEqualTo(20L * full);
        }
    }

    @Test
    void aRowThatFailsWhileBeingWrittenDoesNotCountAndIsOverwritten() {
        try (ShardFixture table = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
                ShardWriter shard = table.open()) {
            RowWriter good = (columns, at) -> {
                ((BigIntVector) columns[0]).setSafe(at, 1);
                ((VarCharVector) columns[1]).setSafe(at, "one".getBytes());
            };
            RowWriter nullKey = (columns, at) -> {
                columns[0].setNull(at);
                ((VarCharVector) columns[1]).setSafe(at, "a much longer value than the next".getBytes());
            };
            RowWriter throwing = (columns, at) -> {
                ((BigIntVector) columns[0]).setSafe(at, 7);
                ((VarCharVector) columns[1]).setSafe(at, "half written".getBytes());
                throw new IllegalArgumentException("value does not fit");
            };
            RowWriter second = (columns, at) -> {
                ((BigIntVector) columns[0]).setSafe(at, 2);
                ((VarCharVector) columns[1]).setSafe(at, "two".getBytes());
            };
            shard.write(good, false);
            assertThatThrownBy(() -> shard.write(nullKey, false))
                    .isInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("null primary-key value");
            assertThatThrownBy(() -> shard.write(throwing, false)).hasMessageContaining("does not fit");
            shard.write(second, false);

            assertThat(shard.stats().rowsWritten()).isEqualTo(2);
            Memtable active = shard.memtables().active();
            assertThat(active.rows()).isEqualTo(2);
            assertThat(active.distinctKeys()).isEqualTo(2);
            assertThat(ShardWriterBulkPutTest.describe(active))
                    .containsSubsequence("1|one|false|", "2|two|false|")
                    .noneMatch(line -> line.contains("half") || line.contains("longer") || line.startsWith("7|"));
        }
    }

    @Test
    void deletesThroughARowWriterNeedAProfileThatRecordsThem() {
        try (ShardFixture table = new ShardFixture(dir, WalSchemaProfile.LANCE_JAVA_7_0, ShardWriterConfig.defaults());
                ShardWriter shard = table.open()) {
            RowWriter row = (columns, at) -> {
                ((BigIntVector) columns[0]).setSafe(at, 1);
                ((VarCharVector) columns[1]).setSafe(at, "one".getBytes());
            };
            assertThatThrownBy(() -> shard.write(row, true))
                    .isInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("cannot record deletes");
            assertThat(shard.stats().deletesWritten()).isZero();
            assertThat(shard.memtables().active().rows()).isZero();
        }
    }
}
