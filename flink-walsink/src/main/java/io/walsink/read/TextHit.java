package io.walsink.read;

import io.walsink.annotation.PublicEvolving;

/**
 * One answer of a {@link TextQuery}: a live row and its BM25 score as Lance computes it (larger is
 * better). Scores of rows found in different datasets (the base table, each SSTable) come from each
 * dataset's own term statistics, as in Lance's LSM search, so they rank alike only roughly.
 */
@PublicEvolving
public record TextHit<R>(R row, double score) {}
