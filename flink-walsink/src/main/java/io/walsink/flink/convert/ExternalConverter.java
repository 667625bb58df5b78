package io.walsink.flink.convert;

/**
 * Converts one non-null external Java value (String, BigDecimal, LocalDateTime, float[], ...)
 * into the internal object Flink's RowData holds for the column type.
 */
@FunctionalInterface
interface ExternalConverter {
    Object toInternal(Object value);
}
