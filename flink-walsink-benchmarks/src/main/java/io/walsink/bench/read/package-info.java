/**
 * The read side: bounded scans beside lance-core's scan and the Flink ceiling, key lookups and
 * lookup joins, what maintained indexes cost writers, and LanceDB's vector query latency as
 * SSTables pile up. It uses only {@code support}.
 */
package io.walsink.bench.read;
