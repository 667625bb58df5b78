package io.walsink.read;

import io.walsink.annotation.PublicEvolving;

/**
 * One answer of a {@link NearestQuery}: a live row and its distance to the query vector, as
 * Lance measures it (L2: the squared Euclidean distance; cosine: 1 - cosine similarity; dot: 1 -
 * the dot product), smaller being nearer.
 */
@PublicEvolving
public record Neighbour<R>(R row, double distance) {}
