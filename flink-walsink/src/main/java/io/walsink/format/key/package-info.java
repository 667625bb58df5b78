/**
 * Primary-key bytes: the order-preserving encoding of key columns used by the memtable index.
 */
package io.walsink.format.key;
