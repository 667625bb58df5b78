package io.walsink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/**
 * Nearest-neighbour searches of a Lance dataset (the base table alone) with lance-core 7.0.0, the
 * Lance walsink writes with: through the dataset's vector index, or exact (the index bypassed).
 */
public final class LanceCoreSearch {
    private LanceCoreSearch() {}

    /**
     * The values of the {@code id} column of the {@code k} rows nearest each of {@code queries}:
     * through the index with HNSW's search breadth {@code ef}, or exact when {@code ef} is 0.
     */
    public static List<List<Long>> nearest(Path dataset, String column, List<float[]> queries, int k, int ef) {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = Dataset.open(dataset.toString(), allocator)) {
            List<List<Long>> answers = new ArrayList<>();
            for (float[] query : queries) {
                Query.Builder q = new Query.Builder()
                        .setColumn(column)
                        .setKey(query)
                        .setK(k)
                        .setUseIndex(ef > 0);
                answers.add(ids(ds, (ef > 0 ? q.setEf(ef) : q).build()));
            }
            return answers;
        }
    }

    private static List<Long> ids(Dataset ds, Query query) {
        List<Long> ids = new ArrayList<>();
        ScanOptions options =
                new ScanOptions.Builder().nearest(query).columns(List.of("id")).build();
        try (LanceScanner scanner = ds.newScan(options);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
                for (int i = 0; i < id.getValueCount(); i++) {
                    ids.add(id.get(i));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lance-core's search of " + ds.uri() + " failed", e);
        } catch (Exception e) {
            throw new IllegalStateException("lance-core's search of " + ds.uri() + " failed", e);
        }
        return ids;
    }
}
