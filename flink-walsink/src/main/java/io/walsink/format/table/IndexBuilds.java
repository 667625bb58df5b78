package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.util.List;
import java.util.Optional;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.index.scalar.BitmapIndexParams;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * How the maintained indexes are built, with lance-core: on the base table as declared, and on
 * every flushed generation (below).
 *
 * <p>A flushed generation's indexes are registered in the SSTable dataset's own
 * manifest under the base index's name, as Lance's flush leaves them: Lance's LSM readers search a
 * flushed generation through its index only ({@code fast_search}), so a generation without it is
 * invisible to them.
 *
 * <p>A vector index becomes IVF_FLAT with a single partition whatever the base table's type: exact,
 * and trained on any number of rows, so an SSTable of any size can have it. (Lance 10's flush
 * writes IVF_HNSW_SQ with one partition, whose graph LanceDB's LSM search walks at a breadth of
 * 1.5 k: it found 6 of the 10 nearest rows of a 29-row SSTable.) Scalar and full-text indexes are
 * the base table's type.
 */
@Internal
public final class IndexBuilds {
    /** HNSW graph degree unless an index declares its own. */
    public static final int DEFAULT_HNSW_M = 16;
    /** HNSW build breadth unless an index declares its own. */
    public static final int DEFAULT_HNSW_EF_CONSTRUCTION = 100;

    private IndexBuilds() {}

    /**
     * Builds every index of {@code indexes} on {@code generation}, a just-written SSTable dataset
     * (or the base table, for a starter vector index: see {@link EmptyTableIndexes}), replacing any
     * of the same name.
     */
    public static void buildOnGeneration(Dataset generation, List<MaintainedIndex> indexes) {
        for (MaintainedIndex index : indexes) {
            generation.createIndex(
                    List.of(index.column()),
                    generationType(index),
                    Optional.of(index.name()),
                    generationParams(index),
                    true);
        }
    }

    /**
     * Creates {@code index} on the base table as declared (vector indexes trained on its rows).
     * lance-core refuses a vector index over fewer rows than its training needs; the caller retries
     * later.
     */
    public static void createOnBase(Dataset base, MaintainedIndex index) {
        base.createIndex(List.of(index.column()), baseType(index), Optional.of(index.name()), baseParams(index), true);
    }

    /** The fewest base rows a vector index is trained on: PQ's 256 codes per sub-vector, IVF's partitions. */
    public static long rowsToTrain(MaintainedIndex index) {
        return index.type().isVector() ? Math.max(256L, index.numPartitions()) : 1L;
    }

    static IndexType baseType(MaintainedIndex index) {
        return switch (index.type()) {
            case IVF_PQ -> IndexType.IVF_PQ;
            case IVF_HNSW_SQ -> IndexType.IVF_HNSW_SQ;
            case IVF_FLAT -> IndexType.IVF_FLAT;
            default -> generationType(index);
        };
    }

    static IndexParams baseParams(MaintainedIndex index) {
        IvfBuildParams ivf = new IvfBuildParams.Builder()
                .setNumPartitions(Math.max(1, index.numPartitions()))
                .build();
        return switch (index.type()) {
            case IVF_PQ -> IndexParams.builder()
                    .setVectorIndexParams(VectorIndexParams.withIvfPqParams(
                            distance(index.metric()),
                            ivf,
                            new PQBuildParams.Builder()
                                    .setNumSubVectors(index.numSubVectors())
                                    .build()))
                    .build();
            case IVF_HNSW_SQ -> IndexParams.builder()
                    .setVectorIndexParams(VectorIndexParams.withIvfHnswSqParams(
                            distance(index.metric()), ivf, hnsw(index), new SQBuildParams.Builder().build()))
                    .build();
            case IVF_FLAT -> IndexParams.builder()
                    .setVectorIndexParams(
                            VectorIndexParams.ivfFlat(Math.max(1, index.numPartitions()), distance(index.metric())))
                    .build();
            default -> generationParams(index);
        };
    }

    /** The type every SSTable (and a starter base index) gets for {@code index}. */
    public static IndexType generationType(MaintainedIndex index) {
        return switch (index.type()) {
            case IVF_PQ, IVF_HNSW_SQ, IVF_FLAT -> IndexType.IVF_FLAT;
            case BTREE -> IndexType.BTREE;
            case BITMAP -> IndexType.BITMAP;
            case INVERTED -> IndexType.INVERTED;
        };
    }

    static IndexParams generationParams(MaintainedIndex index) {
        return switch (index.type()) {
            case IVF_PQ, IVF_HNSW_SQ, IVF_FLAT -> IndexParams.builder()
                    .setVectorIndexParams(VectorIndexParams.ivfFlat(1, distance(index.metric())))
                    .build();
            case BTREE -> IndexParams.builder()
                    .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                    .build();
            case BITMAP -> IndexParams.builder()
                    .setScalarIndexParams(new BitmapIndexParams.Builder().build())
                    .build();
            case INVERTED -> IndexParams.builder()
                    .setScalarIndexParams(invertedDefaults())
                    .build();
        };
    }

    /**
     * Lance's default full-text parameters (as its stats report them for an index LanceDB built),
     * every one set: lance-core 7.0.0 sends only the parameters set, and its index builder refuses
     * a parameter set with any missing.
     */
    private static ScalarIndexParams invertedDefaults() {
        return new InvertedIndexParams.Builder()
                .baseTokenizer("simple")
                .language("English")
                .withPosition(false)
                .maxTokenLength(40)
                .lowerCase(true)
                .stem(true)
                .removeStopWords(true)
                .asciiFolding(true)
                .minNgramLength(3)
                .maxNgramLength(3)
                .prefixOnly(false)
                .build();
    }

    private static HnswBuildParams hnsw(MaintainedIndex index) {
        return new HnswBuildParams.Builder()
                .setM(index.hnswM() > 0 ? index.hnswM() : DEFAULT_HNSW_M)
                .setEfConstruction(
                        index.hnswEfConstruction() > 0 ? index.hnswEfConstruction() : DEFAULT_HNSW_EF_CONSTRUCTION)
                .build();
    }

    /** Lance's distance type of {@code metric}. */
    public static DistanceType distance(MaintainedIndex.Metric metric) {
        return switch (metric) {
            case L2 -> DistanceType.L2;
            case COSINE -> DistanceType.Cosine;
            case DOT -> DistanceType.Dot;
        };
    }
}
