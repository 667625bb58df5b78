package io.walsink.examples;

import io.walsink.flink.WalSink;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.read.NearestQuery;
import io.walsink.read.Neighbour;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.read.TextHit;
import io.walsink.read.TextQuery;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;

/**
 * Appends generated documents with embeddings to the table {@code documents} in a LanceDB database
 * folder, with a vector index on {@code emb} and a full-text index on {@code text} kept fresh by
 * the sink, and searches them while the job runs: walsink's own search here, LanceDB's from {@code
 * flink-examples/src/demo/search-documents.mjs} in another terminal. At the end every document must
 * be in the table once and both searches must find what brute force finds.
 *
 * <pre>mvn -B -Pdemo -DskipTests verify -Ddemo.main=io.walsink.examples.DocumentSearchDemo [-Ddemo.args="--rows 50000"]</pre>
 */
public final class DocumentSearchDemo {
    static final String TABLE = "documents";
    static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(false), VarCharType.STRING_TYPE, VarCharType.STRING_TYPE, new ArrayType(new FloatType())
            },
            new String[] {"id", "title", "text", "emb"});
    /** Documents per second when {@code --rate} is not given: slow enough to search a growing table. */
    static final double DEFAULT_RATE = 1_000;

    static final int K = 10;

    private DocumentSearchDemo() {}

    public static void main(String[] argv) throws Exception {
        DemoArgs args = DemoArgs.parseOrExit("DocumentSearchDemo", argv, 20_000, 1);
        System.exit(run(args) ? 0 : 1);
    }

    /** The table's path: {@code documents.lance} in the database folder {@code --path} names. */
    static String table(DemoArgs args) {
        return args.path().replaceAll("/+$", "") + "/" + TABLE + ".lance";
    }

    /** Runs the demo; true when every document is in the table once and both searches find their answers. */
    static boolean run(DemoArgs args) throws Exception {
        String table = table(args);
        double rate = args.rate() > 0 ? args.rate() : DEFAULT_RATE;
        System.out.printf(
                "walsink document search demo: %,d documents at %,.0f/s into %s (%d buckets)%n",
                args.rows(), rate, table, args.buckets());
        System.out.printf(
                "search it from LanceDB while it runs: node flink-examples/src/demo/search-documents.mjs %s %s harbor%n",
                args.path(), TABLE);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(args.parallelism());
        env.enableCheckpointing(1_000);
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(
                Documents::document,
                args.rows(),
                RateLimiterStrategy.perSecond(rate),
                Types.ROW_NAMED(
                        ROW.getFieldNames().toArray(String[]::new),
                        Types.LONG,
                        Types.STRING,
                        Types.STRING,
                        Types.OBJECT_ARRAY(Types.FLOAT)));
        DemoArgs sinkArgs = new DemoArgs(
                table,
                args.rows(),
                args.keys(),
                args.buckets(),
                args.s3(),
                rate,
                args.parallelism(),
                args.maintenanceSeconds() > 0 ? args.maintenanceSeconds() : 2,
                args.sinkOptions());
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "documents")
                .uid("documents")
                .setParallelism(1)
                .map(new Progress(args.rows(), "documents"))
                .uid("progress")
                .setParallelism(1)
                .sinkTo(sinkArgs.sink(WalSink.forRows(ROW))
                        .vectorColumn("emb", Documents.DIMENSION)
                        .maintainedIndex(MaintainedIndex.ivfFlat("emb_idx", "emb", 4))
                        .maintainedIndex(MaintainedIndex.scalar("text_idx", "text", MaintainedIndex.Type.INVERTED))
                        .build())
                .uid("walsink-documents");
        JobClient job = env.executeAsync("walsink document search demo");
        CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
        while (!result.isDone()) {
            Thread.sleep(3_000); // the demo's pace: each round searches what is committed by then
            System.out.println("  " + searchLine(table, args));
        }
        result.get(); // throws if the job failed
        try (TableReader reader = TableReader.open(table, args.s3())) {
            return summary(args, table, reader);
        }
    }

    /** What walsink's search finds now: the committed count and the documents nearest to the first topic. */
    private static String searchLine(String table, DemoArgs args) {
        try (TableReader reader = TableReader.open(table, args.s3())) {
            int committed = reader.read(ReadMode.COMMITTED).rowCount();
            List<Long> near =
                    reader.nearest(ReadMode.COMMITTED, NearestQuery.of("emb", Documents.centroid(0), 5)).stream()
                            .map(n -> (Long) n.row().get("id"))
                            .toList();
            return String.format(
                    "committed %,d documents; nearest to the '%s' topic: %s",
                    committed, Documents.TOPIC_WORDS[0][0], near);
        } catch (RuntimeException notYet) {
            return "nothing to search yet (" + notYet.getMessage() + ")";
        }
    }

    private static boolean summary(DemoArgs args, String table, TableReader reader) {
        Map<Long, Row> rows = new TreeMap<>();
        int duplicates = 0;
        for (Map<String, Object> r : reader.read(ReadMode.COMMITTED).rows()) {
            if (rows.put((Long) r.get("id"), Row.of(r.get("text"))) != null) {
                duplicates++;
            }
        }
        long wrong = rows.entrySet().stream()
                .filter(e -> !Documents.text(e.getKey()).equals(e.getValue().getField(0)))
                .count();
        boolean complete = rows.size() == args.rows() && duplicates == 0 && wrong == 0;
        double recall = vectorRecall(reader, args.rows());
        boolean textExact = textSearchExact(reader);
        System.out.println();
        System.out.println("walsink document search demo summary");
        System.out.printf("  table            %s%n", table);
        System.out.printf(
                "  documents        %,d of %,d, %d twice, %d with other text%n",
                rows.size(), args.rows(), duplicates, wrong);
        System.out.printf("  vector recall@%d %.3f (one query per topic, against brute force)%n", K, recall);
        System.out.printf(
                "  full text        %s (each topic's words, against a scan)%n", textExact ? "exact" : "WRONG");
        boolean ok = complete && recall >= 0.9 && textExact;
        System.out.printf("  table matches    %s%n", ok ? "YES" : "NO");
        return ok;
    }

    /** Mean recall@K of the indexed search for each topic's centroid, against brute force over every document. */
    static double vectorRecall(TableReader reader, long documents) {
        double sum = 0;
        for (int topic = 0; topic < Documents.TOPICS; topic++) {
            float[] query = Documents.centroid(topic);
            List<Long> exact = new ArrayList<>();
            for (long id = 0; id < documents; id++) {
                exact.add(id);
            }
            exact.sort(Comparator.comparingDouble(id -> distance(query, Documents.embedding(id))));
            List<Long> top = exact.subList(0, Math.min(K, exact.size()));
            List<Neighbour<Map<String, Object>>> found =
                    reader.nearest(ReadMode.COMMITTED, NearestQuery.of("emb", query, K));
            sum += found.stream()
                            .filter(n -> top.contains((Long) n.row().get("id")))
                            .count()
                    / (double) top.size();
        }
        return sum / Documents.TOPICS;
    }

    /** Every full-text hit of each topic word holds the word, and there are as many as asked for. */
    static boolean textSearchExact(TableReader reader) {
        for (String[] words : Documents.TOPIC_WORDS) {
            for (String word : words) {
                List<TextHit<Map<String, Object>>> hits = reader.fullText(new TextQuery("text", word, K));
                boolean allHold = hits.stream()
                        .allMatch(h -> List.of(((String) h.row().get("text")).split(" "))
                                .contains(word));
                if (hits.size() != K || !allHold) {
                    return false;
                }
            }
        }
        return true;
    }

    static double distance(float[] a, float[] b) {
        double sum = 0;
        for (int d = 0; d < a.length; d++) {
            double diff = a[d] - b[d];
            sum += diff * diff;
        }
        return sum;
    }
}
