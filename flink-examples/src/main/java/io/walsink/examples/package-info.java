/** Example jobs that write to and read from MemWAL tables with flink-walsink. */
package io.walsink.examples;
