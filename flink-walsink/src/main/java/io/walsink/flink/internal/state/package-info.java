/**
 * What the writer operator keeps across checkpoints: each bucket's shard descriptor in keyed
 * state, the publications a checkpoint waits for, and the lineage of the job's attempts whose
 * descriptors a new job may start from. Uses bucket routing, never the operator itself; not for
 * users.
 */
package io.walsink.flink.internal.state;
