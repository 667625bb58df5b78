package io.walsink.flink.convert;

import org.apache.arrow.vector.FieldVector;

/** Reads one non-null Arrow value as the internal object Flink's GenericRowData holds for its type. */
@FunctionalInterface
interface FieldReader {
    Object read(FieldVector vector, int index);
}
