/**
 * The memory a writer subtask may hold: the sink's settings, the subtask's share of the task
 * manager's managed memory, the budget its shards write under and the Arrow allocators they use.
 * Uses nothing of the operator in {@code io.walsink.flink.internal}; not for users.
 */
package io.walsink.flink.internal.memory;
