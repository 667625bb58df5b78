/**
 * Maintenance actions on a MemWAL table that run outside the writers, without Flink: garbage
 * collection of what no live manifest and no retained checkpoint can need.
 */
package io.walsink.maintenance;
