/**
 * Layer 4, the merge-on-read reader, as users see it: {@link io.walsink.read.TableReader} reads a
 * whole table (base table, published SSTables and, in {@link io.walsink.read.ReadMode#LATEST}, the
 * WAL tail) and searches it, with the values it takes and returns. Everything here is
 * {@code @PublicEvolving}; the machinery lives in the sub-packages, which walsink's Flink sources
 * use directly: {@code snapshot} (pinning and merging a snapshot), {@code scan} (a snapshot read in
 * splits, and the generations published after it), {@code search} (nearest-neighbour and full-text
 * searches) and {@code lookup} (point lookups by key). No Flink types.
 */
package io.walsink.read;
