package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DayTimeIntervalType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.NullType;
import org.apache.flink.table.types.logical.RawType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.StructuredType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.VariantType;
import org.apache.flink.table.types.logical.YearMonthIntervalType;
import org.apache.flink.table.types.logical.ZonedTimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FlinkArrowTypesTest {

    static Stream<Arguments> scalarMapping() {
        return Stream.of(
                Arguments.of(new BooleanType(), ArrowType.Bool.INSTANCE),
                Arguments.of(new TinyIntType(), new ArrowType.Int(8, true)),
                Arguments.of(new SmallIntType(), new ArrowType.Int(16, true)),
                Arguments.of(new IntType(), new ArrowType.Int(32, true)),
                Arguments.of(new BigIntType(), new ArrowType.Int(64, true)),
                Arguments.of(new FloatType(), new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                Arguments.of(new DoubleType(), new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Arguments.of(new DecimalType(38, 10), new ArrowType.Decimal(38, 10, 128)),
                Arguments.of(new DecimalType(1, 0), new ArrowType.Decimal(1, 0, 128)),
                Arguments.of(new CharType(3), ArrowType.Utf8.INSTANCE),
                Arguments.of(new VarCharType(10), ArrowType.Utf8.INSTANCE),
                Arguments.of(new VarCharType(VarCharType.MAX_LENGTH), ArrowType.Utf8.INSTANCE),
                Arguments.of(new BinaryType(16), ArrowType.Binary.INSTANCE),
                Arguments.of(new VarBinaryType(VarBinaryType.MAX_LENGTH), ArrowType.Binary.INSTANCE),
                Arguments.of(new DateType(), new ArrowType.Date(DateUnit.DAY)),
                Arguments.of(new TimeType(0), new ArrowType.Time(TimeUnit.SECOND, 32)),
                Arguments.of(new TimeType(3), new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
                Arguments.of(new TimeType(6), new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
                Arguments.of(new TimeType(9), new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
                Arguments.of(new TimestampType(0), new ArrowType.Timestamp(TimeUnit.SECOND, null)),
                Arguments.of(new TimestampType(1), new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
                Arguments.of(new TimestampType(3), new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
                Arguments.of(new TimestampType(6), new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
                Arguments.of(new TimestampType(9), new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                Arguments.of(new LocalZonedTimestampType(3), new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
                Arguments.of(new LocalZonedTimestampType(9), new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")));
    }

    @ParameterizedTest
    @MethodSource("scalarMapping")
    void eachFlinkTypeMapsToItsArrowType(LogicalType flink, ArrowType arrow) {
        Field field = FlinkArrowTypes.toArrowField("c", flink);

        assertThat(field.getName()).isEqualTo("c");
        assertThat(field.getType()).isEqualTo(arrow);
        assertThat(field.isNullable()).isTrue();
        assertThat(field.getChildren()).isEmpty();
        assertThat(FlinkArrowTypes.toArrowField("c", flink.copy(false)).isNullable())
                .isFalse();
    }

    @ParameterizedTest
    @MethodSource("scalarMapping")
    void arrowTypesMapBackToAFlinkTypeOfTheSameRoot(LogicalType flink, ArrowType arrow) {
        LogicalType back = FlinkArrowTypes.toLogicalType(new Field("c", new FieldType(false, arrow, null), null));

        assertThat(back.isNullable()).isFalse();
        // CHAR/VARCHAR(n) and BINARY/VARBINARY come back as STRING / BYTES; the rest exactly.
        switch (flink.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                assertThat(back).isEqualTo(new VarCharType(false, VarCharType.MAX_LENGTH));
                break;
            case BINARY:
            case VARBINARY:
                assertThat(back).isEqualTo(new VarBinaryType(false, VarBinaryType.MAX_LENGTH));
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                // precision 1..3 all become milliseconds
                assertThat(back.getTypeRoot()).isEqualTo(flink.getTypeRoot());
                assertThat(FlinkArrowTypes.toArrowField("c", back).getType()).isEqualTo(arrow);
                break;
            default:
                assertThat(back).isEqualTo(flink.copy(false));
        }
    }

    @Test
    void arraysBecomeListsWithAnItemChildRecursively() {
        LogicalType type = new ArrayType(new ArrayType(false, new IntType(false)));

        Field field = FlinkArrowTypes.toArrowField("matrix", type);

        assertThat(field.getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(field.isNullable()).isTrue();
        Field inner = field.getChildren().get(0);
        assertThat(inner.getName()).isEqualTo("item");
        assertThat(inner.getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(inner.isNullable()).isFalse();
        Field element = inner.getChildren().get(0);
        assertThat(element.getType()).isEqualTo(new ArrowType.Int(32, true));
        assertThat(element.isNullable()).isFalse();
        assertThat(FlinkArrowTypes.toLogicalType(field)).isEqualTo(type);
    }

    @Test
    void declaredColumnsBecomeFixedSizeLists() {
        RowType row = RowType.of(
                new LogicalType[] {
                    new BigIntType(false), new ArrayType(new FloatType(false)), new ArrayType(new FloatType())
                },
                new String[] {"id", "embedding", "scores"});

        Schema schema = FlinkArrowTypes.toArrowSchema(row, Map.of("embedding", 768));

        Field embedding = schema.findField("embedding");
        assertThat(embedding.getType()).isEqualTo(new ArrowType.FixedSizeList(768));
        assertThat(embedding.getChildren().get(0).getType())
                .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        assertThat(embedding.getChildren().get(0).isNullable()).isFalse();
        assertThat(schema.findField("scores").getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(FlinkArrowTypes.toLogicalType(embedding)).isEqualTo(new ArrayType(new FloatType(false)));
    }

    @Test
    void fixedSizeListDeclarationsMustNameArrayColumnsOfTheRow() {
        RowType row = RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});

        assertThatThrownBy(() -> FlinkArrowTypes.toArrowSchema(row, Map.of("id", 4)))
                .hasMessageContaining("'id'")
                .hasMessageContaining("not an ARRAY");
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowSchema(row, Map.of("vec", 4)))
                .hasMessageContaining("vec")
                .hasMessageContaining("not in the row type");
        assertThatThrownBy(() -> FlinkArrowTypes.toFixedSizeListField("vec", new ArrayType(new FloatType()), 0))
                .hasMessageContaining("'vec'")
                .hasMessageContaining("positive");
    }

    static Stream<Arguments> unsupportedFlinkTypes() {
        return Stream.of(
                Arguments.of(new MultisetType(new IntType()), "MULTISET"),
                Arguments.of(new RawType<>(String.class, StringSerializer.INSTANCE), "RAW"),
                Arguments.of(new DayTimeIntervalType(DayTimeIntervalType.DayTimeResolution.DAY), "INTERVAL"),
                Arguments.of(new YearMonthIntervalType(YearMonthIntervalType.YearMonthResolution.YEAR), "INTERVAL"),
                Arguments.of(new ZonedTimestampType(3), "WITH TIME ZONE"),
                Arguments.of(new NullType(), "NULL"),
                Arguments.of(new VariantType(), "VARIANT"),
                Arguments.of(
                        StructuredType.newBuilder(FlinkArrowTypesTest.class)
                                .attributes(List.of(new StructuredType.StructuredAttribute("a", new IntType())))
                                .build(),
                        "FlinkArrowTypesTest"));
    }

    @ParameterizedTest
    @MethodSource("unsupportedFlinkTypes")
    void unsupportedFlinkTypesAreRefusedNamingColumnAndType(LogicalType type, String typeText) {
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowField("odd", type))
                .isInstanceOf(UnsupportedColumnTypeException.class)
                .hasMessageContaining("column 'odd'")
                .hasMessageContaining(typeText);
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowField("tags", new ArrayType(type)))
                .isInstanceOf(UnsupportedColumnTypeException.class)
                .hasMessageContaining("column 'tags[]'");
        RowType row = RowType.of(new LogicalType[] {new IntType(), type}, new String[] {"id", "odd"});
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowSchema(row)).hasMessageContaining("column 'odd'");
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowField("addr", row)).hasMessageContaining("column 'addr.odd'");
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowField("attrs", new MapType(new IntType(), type)))
                .hasMessageContaining("column 'attrs{}'");
    }

    static Stream<Arguments> unsupportedArrowTypes() {
        return Stream.of(
                Arguments.of(new ArrowType.Int(32, false)),
                Arguments.of(new ArrowType.Int(64, false)),
                Arguments.of(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
                Arguments.of(new ArrowType.Decimal(40, 2, 256)),
                Arguments.of(ArrowType.Null.INSTANCE),
                Arguments.of(new ArrowType.Interval(org.apache.arrow.vector.types.IntervalUnit.DAY_TIME)),
                Arguments.of(new ArrowType.Duration(TimeUnit.SECOND)));
    }

    @ParameterizedTest
    @MethodSource("unsupportedArrowTypes")
    void unsupportedArrowTypesAreRefusedNamingColumnAndType(ArrowType type) {
        Field field = new Field("odd", FieldType.nullable(type), null);

        assertThatThrownBy(() -> FlinkArrowTypes.toLogicalType(field))
                .isInstanceOf(UnsupportedColumnTypeException.class)
                .hasMessageContaining("column 'odd'")
                .hasMessageContaining(type.toString());
    }

    @Test
    void structsAndMapsAreReadAsRowsAndMapsAndTheirUnsupportedPartsNamed() {
        Field struct = new Field(
                "s",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(Field.nullable("a", new ArrowType.Int(32, true))));
        Field listOfUnsigned = new Field(
                "l",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(Field.nullable("item", new ArrowType.Int(8, false))));
        Field structOfUnsigned = new Field(
                "s",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(Field.nullable("u", new ArrowType.Int(8, false))));

        assertThat(FlinkArrowTypes.toLogicalType(struct))
                .isEqualTo(RowType.of(new LogicalType[] {new IntType()}, new String[] {"a"}));
        assertThat(FlinkArrowTypes.toArrowField("s", FlinkArrowTypes.toLogicalType(struct)))
                .isEqualTo(struct);
        assertThatThrownBy(() -> FlinkArrowTypes.toLogicalType(listOfUnsigned)).hasMessageContaining("column 'l[]'");
        assertThatThrownBy(() -> FlinkArrowTypes.toLogicalType(structOfUnsigned))
                .hasMessageContaining("column 's.u'");
    }

    @Test
    void readingAcceptsTheWiderArrowFamilies() {
        assertThat(FlinkArrowTypes.toLogicalType(Field.nullable("a", ArrowType.LargeUtf8.INSTANCE)))
                .isEqualTo(new VarCharType(VarCharType.MAX_LENGTH));
        assertThat(FlinkArrowTypes.toLogicalType(Field.nullable("a", ArrowType.LargeBinary.INSTANCE)))
                .isEqualTo(new VarBinaryType(VarBinaryType.MAX_LENGTH));
        assertThat(FlinkArrowTypes.toLogicalType(Field.nullable("a", new ArrowType.FixedSizeBinary(16))))
                .isEqualTo(new BinaryType(16));
        assertThat(FlinkArrowTypes.toLogicalType(Field.nullable("a", new ArrowType.Date(DateUnit.MILLISECOND))))
                .isEqualTo(new DateType());
        assertThat(FlinkArrowTypes.toLogicalType(
                        Field.nullable("a", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Berlin"))))
                .isEqualTo(new LocalZonedTimestampType(6));
    }

    @Test
    void rowTypeAndDataTypeFollowTheSchema() {
        Schema schema = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

        assertThat(FlinkArrowTypes.toRowType(schema))
                .isEqualTo(RowType.of(
                        new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
                        new String[] {"id", "name"}));
        assertThat(FlinkArrowTypes.toDataType(schema.getFields().get(0)))
                .isEqualTo(DataTypes.BIGINT().notNull());
    }
}
