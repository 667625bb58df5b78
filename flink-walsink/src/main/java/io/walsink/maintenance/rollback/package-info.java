/**
 * The engine of a table rollback ({@link io.walsink.maintenance.TableRollback}): the refusals, the
 * intent, the shard claims, the Lance restore commit and the record that makes restores of older
 * checkpoints fail. No Flink types.
 */
package io.walsink.maintenance.rollback;
