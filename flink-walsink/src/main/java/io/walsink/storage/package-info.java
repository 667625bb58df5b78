/**
 * Layer 1, storage: the object-store operations the MemWAL format needs (put-if-absent, put, get,
 * head, list, delete) on local files, S3 and memory, with retries. Depends on nothing else in
 * walsink.
 */
package io.walsink.storage;
