/** Schema changes of a MemWAL table: nullable columns added at the end. */
package io.walsink.maintenance.schema;
