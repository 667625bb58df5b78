/**
 * Layer 5, Flink SQL: the {@code 'type' = 'walsink'} catalog over a warehouse folder, whose tables
 * lie where Lance's directory namespace and LanceDB's {@code connect(root).openTable(name)} find
 * them.
 */
package io.walsink.table.catalog;
