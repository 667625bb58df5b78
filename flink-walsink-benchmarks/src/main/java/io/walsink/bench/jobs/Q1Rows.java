package io.walsink.bench.jobs;

import java.io.Serializable;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The q1-shaped stream: change {@code i} (0 to rows-1) upserts key {@code (i * m) mod keys}, a
 * string {@code "bid-" + i} and ten BIGINTs {@code i * (2j + 1) + seed}. The multiplier {@code
 * m}, drawn from the seed, is coprime with the key count, so every run of {@code keys}
 * consecutive changes touches every key once (3 M changes over 1 M keys: each key three times,
 * in a scrambled order). The DataStream generator and the SQL query compute the same rows.
 *
 * <p>Keys are owned by source subtasks, so that each key's changes arrive at the sink in
 * order and the final table is known: {@code m} is 1 modulo the parallelism {@code p}, so the
 * key has the residue of {@code i} mod {@code p}. SQL's datagen sequence gives subtask s every
 * {@code i} with that residue, in order; the DataStream source splits its index range into
 * {@code p} contiguous blocks, and {@link #changeOfIndex} maps block s to those same {@code i}.
 */
final class Q1Rows implements Serializable {
    private static final long serialVersionUID = 1L;
    static final int VALUES = 10;
    static final RowType ROW_TYPE = rowType();

    final long rows;
    final long keys;
    final int parallelism;
    final long seed;
    final long multiplier;

    Q1Rows(long rows, long keys, int parallelism, long seed) {
        if (rows % parallelism != 0 || keys % parallelism != 0) {
            throw new IllegalArgumentException("rows (" + rows + ") and keys (" + keys
                    + ") must be multiples of the parallelism (" + parallelism + ")");
        }
        this.rows = rows;
        this.keys = keys;
        this.parallelism = parallelism;
        this.seed = seed;
        this.multiplier = multiplier(seed, keys, parallelism);
        Math.multiplyExact(rows, multiplier); // i * m must not overflow a BIGINT
        Math.addExact(Math.multiplyExact(rows, 2L * VALUES + 1), Math.abs(seed));
    }

    /** 0x9E3779B1 (a golden-ratio constant) plus the seed, moved up to be coprime with keys and 1 mod p. */
    private static long multiplier(long seed, long keys, int p) {
        long m = 2_654_435_761L + Math.floorMod(seed, 1L << 20);
        while (Math.floorMod(m, p) != 1 % p
                || !BigInteger.valueOf(m).gcd(BigInteger.valueOf(keys)).equals(BigInteger.ONE)) {
            m++;
        }
        return m;
    }

    /** The change the DataStream source's {@code index} stands for (blocks of rows/p to residues). */
    long changeOfIndex(long index) {
        long block = rows / parallelism;
        return (index % block) * parallelism + index / block;
    }

    long keyOf(long i) {
        return (i * multiplier) % keys;
    }

    long value(long i, int j) {
        return i * (2L * j + 1) + seed;
    }

    RowData row(long i) {
        GenericRowData row = new GenericRowData(2 + VALUES);
        row.setField(0, keyOf(i));
        row.setField(1, StringData.fromString("bid-" + i));
        for (int j = 1; j <= VALUES; j++) {
            row.setField(1 + j, value(i, j));
        }
        return row;
    }

    /** The columns, for CREATE TABLE. */
    static String columnsDdl() {
        List<String> columns = new ArrayList<>();
        columns.add("id BIGINT NOT NULL");
        columns.add("name STRING");
        for (int j = 1; j <= VALUES; j++) {
            columns.add("v" + j + " BIGINT");
        }
        return String.join(", ", columns);
    }

    /** The SELECT list over a sequence column {@code i} that computes {@link #row}. */
    String selectList() {
        List<String> select = new ArrayList<>();
        select.add("MOD(i * " + multiplier + ", " + keys + ") AS id");
        select.add("CONCAT('bid-', CAST(i AS STRING)) AS name");
        for (int j = 1; j <= VALUES; j++) {
            select.add("i * " + (2 * j + 1) + " + (" + seed + ") AS v" + j);
        }
        return String.join(", ", select);
    }

    /** For every key, the change that must be its final row: the last one, -1 for none. */
    long[] lastChangePerKey() {
        long[] last = new long[Math.toIntExact(keys)];
        Arrays.fill(last, -1);
        for (long i = 0; i < rows; i++) {
            last[(int) keyOf(i)] = i; // increasing i: the last write wins
        }
        return last;
    }

    private static RowType rowType() {
        LogicalType[] types = new LogicalType[2 + VALUES];
        String[] names = new String[2 + VALUES];
        types[0] = new BigIntType(false);
        names[0] = "id";
        types[1] = VarCharType.STRING_TYPE;
        names[1] = "name";
        for (int j = 1; j <= VALUES; j++) {
            types[1 + j] = new BigIntType();
            names[1 + j] = "v" + j;
        }
        return RowType.of(types, names);
    }
}
