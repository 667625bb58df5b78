/**
 * Lance's bucket hash and the bucket of a key value, agreeing with lance-core's sharding evaluator.
 */
package io.walsink.format.sharding;
