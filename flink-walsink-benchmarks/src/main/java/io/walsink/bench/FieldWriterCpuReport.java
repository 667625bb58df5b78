package io.walsink.bench;

import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.flink.convert.writers.RowDataArrowWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

/**
 * The operator's field writers alone: q1's rows, as binary rows the way a keyed writer receives
 * them from the shuffle, copied into a batch of Arrow vectors that has room for them (as a
 * memtable's open batch does), by {@code RowDataArrowWriter.writeInPlace} (the operator's path)
 * and by {@code write} (Arrow's checked {@code setSafe} for every value), in CPU nanoseconds per
 * row of the writing thread. The rows cycle through a window of 1,024 (rows that arrive from the
 * network are in the cache) and the batch's memory is reused, so neither the rows' nor the
 * batch's first touch is counted: what is left is the writers' own work.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp flink-walsink-benchmarks/target/benchmarks.jar \
 *     io.walsink.bench.FieldWriterCpuReport [--seconds 3] [--rounds 5]
 * </pre>
 */
public final class FieldWriterCpuReport {
    static final String USAGE = String.join(
            "\n",
            "Usage: FieldWriterCpuReport [options]",
            "  --seconds N     wall seconds of each measured turn, after a warm-up turn as long (default 3)",
            "  --rounds N      turns of each method, alternating their order (default 5)");
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("--seconds", "3");
        DEFAULTS.put("--rounds", "5");
    }

    private static final int WINDOW = 1024;
    private static final int BATCH_ROWS = 8192;

    enum Method implements CpuTurns.Described {
        CHECKED("write: Arrow's setSafe for every value"),
        IN_PLACE("writeInPlace: the operator's path into a memtable's open batch");

        private final String what;

        Method(String what) {
            this.what = what;
        }

        @Override
        public String what() {
            return what;
        }
    }

    private FieldWriterCpuReport() {}

    public static void main(String[] argv) throws InterruptedException {
        Optional<Flags> parsed = Flags.forMain(argv, DEFAULTS, USAGE);
        if (parsed.isEmpty()) {
            return;
        }
        Flags flags = parsed.get();
        System.out.print(render(measure(flags.positive("--seconds") * 1000, flags.positiveInt("--rounds"))));
    }

    /** Warms each method up for one turn, then runs {@code rounds} measured turns of each. */
    static List<CpuTurns.Turn<Method>> measure(long turnMillis, int rounds) throws InterruptedException {
        Schema schema = FlinkArrowTypes.toArrowSchema(Q1Rows.ROW_TYPE);
        RowDataArrowWriter writer = RowDataArrowWriter.create(Q1Rows.ROW_TYPE, schema);
        RowData[] rows = binaryRows(new Q1Rows(WINDOW, WINDOW, 1, 42));
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            for (FieldVector v : batch.getFieldVectors()) {
                v.setInitialCapacity(BATCH_ROWS);
            }
            batch.allocateNew();
            return CpuTurns.alternate(Method.values(), rounds, m -> turn(m, writer, rows, batch, turnMillis));
        }
    }

    private static CpuTurns.Turn<Method> turn(
            Method method, RowDataArrowWriter writer, RowData[] rows, VectorSchemaRoot batch, long millis) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        FieldVector[] columns = batch.getFieldVectors().toArray(new FieldVector[0]);
        long written = 0;
        long cpu = 0;
        long end = System.nanoTime() + millis * 1_000_000;
        do {
            for (FieldVector v : columns) {
                v.reset(); // keeps the buffers: their memory was touched by the first batch
            }
            long before = threads.getCurrentThreadCpuTime();
            for (int r = 0; r < BATCH_ROWS; r++) {
                RowData row = rows[r & (WINDOW - 1)];
                if (method == Method.IN_PLACE) {
                    writer.writeInPlace(row, columns, r);
                } else {
                    writer.write(row, columns, r);
                }
            }
            cpu += threads.getCurrentThreadCpuTime() - before;
            batch.setRowCount(BATCH_ROWS);
            written += BATCH_ROWS;
        } while (System.nanoTime() < end);
        return new CpuTurns.Turn<>(method, written, cpu);
    }

    private static RowData[] binaryRows(Q1Rows q1) {
        RowDataSerializer serializer = new RowDataSerializer(Q1Rows.ROW_TYPE);
        DataOutputSerializer out = new DataOutputSerializer(256);
        RowData[] rows = new RowData[WINDOW];
        try {
            for (int i = 0; i < WINDOW; i++) {
                out.clear();
                serializer.serialize(q1.row(i), out);
                rows[i] = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    static String render(List<CpuTurns.Turn<Method>> turns) {
        return String.format(
                "%n== q1's binary rows into Arrow vectors, CPU time of the writing thread (higher x = cheaper) ==%n%s",
                CpuTurns.table(turns, Method.values(), Method.CHECKED));
    }
}
