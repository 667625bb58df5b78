/**
 * Shard manifests: the protobuf codec, versions with put-if-absent, claims (epochs) and the SSTable
 * path rules.
 */
package io.walsink.format.manifest;
