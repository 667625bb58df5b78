package io.walsink.examples;

import static io.walsink.examples.ExamplesTest.assertVerifies;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.WalSink;
import io.walsink.flink.WalSinkBuilder;
import io.walsink.format.wal.WalSchemaProfile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code walsink verify} and {@code scan} on the kinds of table the sink writes that the examples
 * do not: append-only, and upserts in the lance-java-7.0 WAL profile (no tombstone column, so the
 * tool must recognise the profile to decode the entries). The examples cover upserts with deletes,
 * changelogs and SQL.
 */
class WalsinkCliOnJobTablesTest {
    static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "value"});

    @TempDir
    Path dir;

    /** Row {@code i}: key {@code i % keys}, value {@code "v" + i}. */
    private static void write(String path, long rows, int keys, UnaryOperator<WalSinkBuilder<Row>> sink)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        env.fromSequence(0, rows - 1)
                .map(i -> Row.of(i % keys, "v" + i))
                .returns(Types.ROW_NAMED(new String[] {"id", "value"}, Types.LONG, Types.STRING))
                .sinkTo(sink.apply(WalSink.forRows(ROW)
                                .path(path)
                                .flushInterval(Duration.ofMillis(20))
                                .memtableMaxRows(300))
                        .build());
        env.execute("walsink cli test job");
    }

    private static List<String> csv(String path, String mode) {
        Console.Run scan = Console.walsink("scan", path, "--mode", mode, "--format", "csv");
        assertThat(scan.code()).as(scan.err()).isZero();
        return scan.out().lines().toList();
    }

    @Test
    void anAppendOnlyTableVerifiesAndKeepsEveryRow() throws Exception {
        String path = dir.resolve("append-only").toString();
        write(path, 1_000, 10, b -> b.createTableIfMissing(1));
        assertVerifies(path);
        for (String mode : List.of("committed", "latest")) {
            List<String> lines = csv(path, mode);
            assertThat(lines).first().isEqualTo("id,value");
            assertThat(lines).hasSize(1_001);
            assertThat(lines).contains("3,v3", "3,v993", "9,v999");
        }
    }

    @Test
    void aLanceJava70ProfileTableVerifiesAndScans() throws Exception {
        String path = dir.resolve("lance-java-7.0").toString();
        write(path, 1_000, 120, b -> b.primaryKey("id")
                .createTableIfMissing(2)
                .schemaProfile(WalSchemaProfile.LANCE_JAVA_7_0));
        assertVerifies(path);
        Map<Long, String> model = new TreeMap<>();
        for (long i = 0; i < 1_000; i++) {
            model.put(i % 120, "v" + i);
        }
        List<String> expected = new ArrayList<>(List.of("id,value"));
        model.forEach((id, value) -> expected.add(id + "," + value));
        assertThat(csv(path, "committed")).containsExactlyElementsOf(expected);
        assertThat(csv(path, "latest")).containsExactlyElementsOf(expected);
    }
}
