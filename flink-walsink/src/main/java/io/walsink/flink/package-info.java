/**
 * Layer 4, the DataStream API: {@link io.walsink.flink.WalSink} and its builder.
 */
package io.walsink.flink;
