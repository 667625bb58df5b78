package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lance.Dataset;

/**
 * Maintained indexes declared in SQL ({@code 'index.<name>.*'}): the table is created with their
 * definitions, a later table declaring none writes it all the same, and bad declarations fail while
 * the INSERT is planned, naming the option, with nothing created.
 */
class WalSinkSqlIndexOptionsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String COLUMNS = "id BIGINT, body STRING, emb ARRAY<FLOAT>, PRIMARY KEY (id) NOT ENFORCED";

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void declaredIndexesAreTheTablesAndAJobDeclaringNoneWritesIt() throws Exception {
        Path path = dir.resolve("t");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "t",
                COLUMNS,
                path,
                "buckets",
                "2",
                "vector.emb.dimension",
                "4",
                "index.emb_idx.column",
                "emb",
                "index.emb_idx.type",
                "ivf_pq",
                "index.emb_idx.metric",
                "cosine",
                "index.emb_idx.num-partitions",
                "2",
                "index.emb_idx.num-sub-vectors",
                "2",
                "index.emb_idx.hnsw-m",
                "24",
                "index.body_idx.column",
                "body",
                "index.body_idx.type",
                "INVERTED"));
        sql.executeSql("INSERT INTO t VALUES (1, 'a b', ARRAY[CAST(1 AS FLOAT), 2, 3, 4])")
                .await();

        assertThat(MaintainedIndexes.of(LanceTables.open(path.toString(), Map.of())))
                .containsExactly(
                        MaintainedIndex.scalar("body_idx", "body", MaintainedIndex.Type.INVERTED),
                        new MaintainedIndex(
                                "emb_idx",
                                "emb",
                                MaintainedIndex.Type.IVF_PQ,
                                MaintainedIndex.Metric.COSINE,
                                2,
                                2,
                                24,
                                0));

        List<Path> sstables;
        try (Stream<Path> walk = Files.walk(path.resolve("_mem_wal"), 2)) {
            sstables = walk.filter(f -> f.getFileName().toString().contains("_gen_"))
                    .toList();
        }
        assertThat(sstables).isNotEmpty();
        try (RootAllocator allocator = new RootAllocator();
                Dataset sstable =
                        LanceTables.openDataset(allocator, sstables.get(0).toString(), Map.of())) {
            assertThat(sstable.getIndexStatistics("emb_idx").toString())
                    .as("the SSTable's vector index: exact (IVF_FLAT, one partition), with the declared metric")
                    .contains("index_type=IVF_FLAT", "num_partitions=1", "metric_type=cosine");
        }

        sql.executeSql(SqlTables.walsinkTable("again", COLUMNS, path, "vector.emb.dimension", "4"));
        sql.executeSql("INSERT INTO again VALUES (2, 'c', ARRAY[CAST(1 AS FLOAT), 2, 3, 4])")
                .await();
        assertThat(SqlTables.collect(sql, "SELECT id FROM again").stream().map(r -> r.getField(0)))
                .as("the SQL scan reads every row; the placeholder fragment of the vector index shows none")
                .containsExactlyInAnyOrder(1L, 2L);
        sql.executeSql(SqlTables.walsinkTable("other", COLUMNS, path, "index.x.column", "id", "index.x.type", "btree"));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO other VALUES (3, 'd', ARRAY[CAST(1 AS FLOAT)])"))
                .hasStackTraceContaining("maintains indexes")
                .hasStackTraceContaining("fixed when the table is created");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "index.i.column  | emb     | Index 'i' needs option 'index.i.type'",
                "index.i.type    | ivf_pq  | Index 'i' needs option 'index.i.column'",
                "index.i.colour  | red     | Unsupported option 'index.i.colour'",
                "index.i         | x       | Unsupported option 'index.i'",
            })
    void aBadIndexDeclarationFailsNamingIt(String option, String value, String message) {
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable("b", COLUMNS, dir.resolve("b"), "buckets", "1", option, value));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO b VALUES (1, 'a', ARRAY[CAST(1 AS FLOAT)])"))
                .hasStackTraceContaining(message);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "ivf_pq | metric         | manhattan | Option 'index.i.metric' must be one of [L2, COSINE, DOT]",
                "ivf_pq | num-partitions | 0         | Option 'index.i.num-partitions' must be a positive integer",
                "ivf_pq | num-sub-vectors | 3        | num-sub-vectors 3 must divide the dimension of column 'emb' (1)",
                "hnsw   | metric         | l2        | Option 'index.i.type' must be one of [IVF_PQ, IVF_HNSW_SQ",
                "btree  | metric         | l2        | metric, num-partitions, num-sub-vectors and the hnsw parameters apply to vector",
                "ivf_hnsw_sq | hnsw-m    | 0         | Option 'index.i.hnsw-m' must be a positive integer, got '0'",
                "btree  | hnsw-ef-construction | 64  | the hnsw parameters apply to vector indexes, not BTREE",
            })
    void aBadIndexPropertyFailsNamingIt(String type, String property, String value, String message) {
        Path path = dir.resolve("p");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "p",
                COLUMNS,
                path,
                "buckets",
                "1",
                "vector.emb.dimension",
                "1",
                "index.i.column",
                type.equals("btree") ? "id" : "emb",
                "index.i.type",
                type,
                "index.i." + property,
                value));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO p VALUES (1, 'a', ARRAY[CAST(1 AS FLOAT)])"))
                .hasStackTraceContaining(message);
        assertThatThrownBy(() -> LanceTables.open(path.toString(), Map.of()))
                .as("nothing created")
                .hasMessageContaining("no Lance table");
    }
}
