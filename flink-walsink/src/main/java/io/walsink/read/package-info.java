/**
 * Layer 4, the merge-on-read reader: base table, published SSTables and (LATEST) the WAL tail;
 * {@link io.walsink.read.TableReader} is its entry point. No Flink types.
 */
package io.walsink.read;
