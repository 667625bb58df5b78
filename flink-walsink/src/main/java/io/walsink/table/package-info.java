/**
 * Layer 5, Flink SQL: the 'walsink' connector's factory, options, sink and source.
 */
package io.walsink.table;
