/**
 * The base table's indexes after a compaction's merges: the table's maintained indexes created
 * and retrained, every index refreshed or rebuilt where the merges left it stale. Entered through
 * {@link io.walsink.maintenance.index.BaseIndexRefresh}; uses nothing else of maintenance.
 */
package io.walsink.maintenance.index;
