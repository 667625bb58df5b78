/**
 * A flushed generation's primary-key index (the MemWAL specification's {@code _pk_index/} BTree
 * files that Lance's readers open for every flushed generation), and the key orders it is sorted by.
 */
package io.walsink.format.pkindex;
