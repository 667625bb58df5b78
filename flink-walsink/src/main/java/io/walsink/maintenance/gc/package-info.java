/**
 * Garbage collection ({@link io.walsink.maintenance.gc.GarbageCollector}): removes from a table
 * what no live manifest, no checkpoint within the retention and no live consumer record can need.
 * Uses nothing else of maintenance.
 */
package io.walsink.maintenance.gc;
