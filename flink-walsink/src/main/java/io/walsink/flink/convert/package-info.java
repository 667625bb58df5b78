/**
 * Flink rows, records and types to and from Arrow, and the bucket of a RowData.
 */
package io.walsink.flink.convert;
