/**
 * Moves a table's shards from the ids earlier releases gave them to the ids Lance's writers derive
 * ({@link io.walsink.maintenance.migration.ShardIdMigration}). Uses nothing else of maintenance.
 */
package io.walsink.maintenance.migration;
