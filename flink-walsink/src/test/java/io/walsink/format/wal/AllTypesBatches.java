package io.walsink.format.wal;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** A table schema using the common Arrow types, and batches of it with nulls in every nullable column. */
final class AllTypesBatches {
    static final Schema TABLE = new Schema(
            List.of(
                    new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                    Field.nullable("i8", new ArrowType.Int(8, true)),
                    Field.nullable("i16", new ArrowType.Int(16, true)),
                    Field.nullable("i32", new ArrowType.Int(32, true)),
                    Field.nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                    Field.nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                    Field.nullable("dec", new ArrowType.Decimal(12, 2, 128)),
                    Field.nullable("flag", ArrowType.Bool.INSTANCE),
                    Field.nullable("name", ArrowType.Utf8.INSTANCE),
                    Field.nullable("blob", ArrowType.Binary.INSTANCE),
                    Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
                    Field.nullable("tod", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
                    Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
                    Field.nullable("ts_utc", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                    new Field(
                            "tags",
                            FieldType.nullable(ArrowType.List.INSTANCE),
                            List.of(Field.nullable("item", new ArrowType.Int(32, true)))),
                    new Field(
                            "vec",
                            FieldType.nullable(new ArrowType.FixedSizeList(3)),
                            List.of(Field.nullable(
                                    "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))),
            Map.of("owner", "tests"));

    static final Map<String, Integer> FIELD_IDS = fieldIds();

    private AllTypesBatches() {}

    private static Map<String, Integer> fieldIds() {
        LinkedHashMap<String, Integer> ids = new LinkedHashMap<>();
        int id = 0;
        for (Field f : TABLE.getFields()) {
            ids.put(f.getName(), id);
            id += 1 + f.getChildren().size();
        }
        return ids;
    }

    static WalStorageSchema storage(WalSchemaProfile profile) {
        return WalStorageSchema.derive(TABLE, List.of("id"), FIELD_IDS, profile);
    }

    /** {@code rows} rows of {@code schema} starting at key {@code firstId}; every third row has nulls. */
    static VectorSchemaRoot batch(Schema schema, BufferAllocator allocator, long firstId, int rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.allocateNew();
        for (int r = 0; r < rows; r++) {
            long id = firstId + r;
            ((BigIntVector) root.getVector("id")).setSafe(r, id);
            if (r % 3 == 2) {
                for (var v : root.getFieldVectors()) {
                    if (!v.getName().equals("id") && !v.getName().equals(WalStorageSchema.TOMBSTONE)) {
                        setNull(v, r);
                    }
                }
            } else {
                fill(root, r, id);
            }
            if (root.getVector(WalStorageSchema.TOMBSTONE) != null) {
                ((BitVector) root.getVector(WalStorageSchema.TOMBSTONE)).setSafe(r, r % 4 == 3 ? 1 : 0);
            }
        }
        root.setRowCount(rows);
        return root;
    }

    private static void setNull(FieldVector v, int r) {
        if (v instanceof ListVector list) {
            list.setNull(r);
        } else if (v instanceof FixedSizeListVector fixed) {
            fixed.setNull(r);
        } else if (v instanceof BaseVariableWidthVector variable) {
            variable.setNull(r);
        } else {
            ((BaseFixedWidthVector) v).setNull(r);
        }
    }

    private static void fill(VectorSchemaRoot root, int r, long id) {
        ((TinyIntVector) root.getVector("i8")).setSafe(r, (byte) (id % 100));
        ((SmallIntVector) root.getVector("i16")).setSafe(r, (short) (id * 7));
        ((IntVector) root.getVector("i32")).setSafe(r, (int) -id);
        ((Float4Vector) root.getVector("f32")).setSafe(r, id + 0.25f);
        ((Float8Vector) root.getVector("f64")).setSafe(r, id / 3.0);
        ((DecimalVector) root.getVector("dec")).setSafe(r, new BigDecimal(id + ".25"));
        ((BitVector) root.getVector("flag")).setSafe(r, id % 2 == 0 ? 1 : 0);
        ((VarCharVector) root.getVector("name")).setSafe(r, ("näme-" + id).getBytes(StandardCharsets.UTF_8));
        ((VarBinaryVector) root.getVector("blob")).setSafe(r, new byte[] {0, (byte) id, -1});
        ((DateDayVector) root.getVector("day")).setSafe(r, 19000 + (int) id);
        ((TimeMicroVector) root.getVector("tod")).setSafe(r, 3_600_000_000L + id);
        ((TimeStampMicroVector) root.getVector("ts")).setSafe(r, 1_700_000_000_000_000L + id);
        ((TimeStampMicroTZVector) root.getVector("ts_utc")).setSafe(r, 1_700_000_000_000_000L - id);
        UnionListWriter tags = ((ListVector) root.getVector("tags")).getWriter();
        tags.setPosition(r);
        tags.startList();
        for (int i = 0; i <= id % 3; i++) {
            tags.writeInt((int) (id * 10 + i));
        }
        tags.endList();
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector values = (Float4Vector) vec.getDataVector();
        vec.setNotNull(r);
        for (int i = 0; i < 3; i++) {
            values.setSafe(r * 3 + i, id + i / 10f);
        }
    }
}
