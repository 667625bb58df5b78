package io.walsink.format.table;

import io.walsink.format.FormatException;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.lance.memwal.MemWalIndexDetails;
import org.lance.memwal.ShardingField;

/** Reads lance-core's sharding specs into {@link ShardingSpec}. */
final class ShardingSpecs {
    static final String NUM_BUCKETS = "num_buckets";

    private ShardingSpecs() {}

    /** The spec with the highest id: the one new shards are written under. */
    static ShardingSpec newest(String uri, MemWalIndexDetails details, Map<Integer, String> columnsById) {
        org.lance.memwal.ShardingSpec spec = details.shardingSpecs().stream()
                .max(Comparator.comparingInt(org.lance.memwal.ShardingSpec::specId))
                .orElseThrow(() -> new FormatException(uri, "MemWAL index declares no sharding spec", null));
        if (spec.fields().isEmpty()) {
            return new ShardingSpec(spec.specId(), "", "int32", TableSharding.unsharded());
        }
        if (spec.fields().size() > 1) {
            throw new FormatException(
                    uri,
                    "sharding spec " + spec.specId() + " has " + spec.fields().size()
                            + " fields; only single-field sharding is supported",
                    null);
        }
        ShardingField field = spec.fields().get(0);
        String transformName = field.transform()
                .orElseThrow(() -> new FormatException(
                        uri,
                        "sharding field '" + field.fieldId() + "' has an expression, not a transform; not supported",
                        null));
        ShardTransform transform;
        try {
            transform = ShardTransform.fromLanceName(transformName);
        } catch (IllegalArgumentException e) {
            throw new FormatException(uri, e.getMessage(), e);
        }
        TableSharding sharding =
                switch (transform) {
                    case UNSHARDED -> TableSharding.unsharded();
                    case BUCKET -> TableSharding.bucket(sourceColumn(uri, field, columnsById), numBuckets(uri, field));
                    case IDENTITY -> new TableSharding(
                            ShardTransform.IDENTITY,
                            Optional.of(sourceColumn(uri, field, columnsById)),
                            OptionalInt.empty());
                };
        return new ShardingSpec(spec.specId(), field.fieldId(), field.resultType(), sharding);
    }

    private static String sourceColumn(String uri, ShardingField field, Map<Integer, String> columnsById) {
        if (field.sourceIds().size() != 1) {
            throw new FormatException(
                    uri,
                    "sharding field '" + field.fieldId() + "' has source ids " + field.sourceIds()
                            + "; exactly one is supported",
                    null);
        }
        String column = columnsById.get(field.sourceIds().get(0));
        if (column == null) {
            throw new FormatException(
                    uri,
                    "sharding field '" + field.fieldId() + "' refers to field id "
                            + field.sourceIds().get(0) + ", which is not a top-level column",
                    null);
        }
        return column;
    }

    private static int numBuckets(String uri, ShardingField field) {
        String value = field.parameters().get(NUM_BUCKETS);
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new FormatException(
                    uri,
                    "bucket sharding field '" + field.fieldId() + "' has " + NUM_BUCKETS + "=" + value
                            + ", not an integer",
                    e);
        }
    }
}
