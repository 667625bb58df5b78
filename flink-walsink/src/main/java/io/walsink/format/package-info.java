/**
 * Layer 2, the MemWAL format: object names, path rules and the hash shared by the layers above.
 * Depends on storage only.
 */
package io.walsink.format;
