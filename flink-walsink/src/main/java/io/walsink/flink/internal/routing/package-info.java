/**
 * Which writer subtask a bucket goes to, as a Flink key that lands in the bucket's key group, and
 * the per-bucket timers that tick its shard. Not for users.
 */
package io.walsink.flink.internal.routing;
