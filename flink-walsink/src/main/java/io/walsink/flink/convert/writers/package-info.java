/**
 * Flink's RowData written into Arrow vectors: {@code RowDataArrowWriter} and the field writers it
 * resolves once per column, checked or in place at the buffers' addresses. Builds on the type
 * mapping and the errors of {@code io.walsink.flink.convert}, which knows nothing of it.
 */
package io.walsink.flink.convert.writers;
