/**
 * The Lance table: creating and opening it through lance-core, its primary key, sharding spec and
 * MemWAL index.
 */
package io.walsink.format.table;
