package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.table.LanceFailures;
import io.walsink.format.table.TableLocation;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/** Opens the base table at the version a {@link TableSnapshot} pinned. */
@Internal
public final class PinnedBase {
    private PinnedBase() {}

    /**
     * @throws io.walsink.format.table.TableNotFoundException if there is no table at the URI
     * @throws io.walsink.format.manifest.GarbageCollectedException if the version was cleaned up
     */
    public static Dataset open(BufferAllocator allocator, TableLocation table, TableSnapshot snapshot) {
        String uri = table.uri();
        Dataset latest = table.openBase(allocator);
        if (latest.version() == snapshot.baseVersion()) {
            return latest;
        }
        try (latest) {
            return latest.checkoutVersion(snapshot.baseVersion());
        } catch (RuntimeException e) { // lance-core reports a removed version as a generic error
            if (LanceFailures.isS3Failure(uri, e)) { // the store failed: the version may well be there
                throw table.failure(uri, "opening base table version " + snapshot.baseVersion(), e);
            }
            throw ExpiredSnapshot.of(
                    uri, "base table version " + snapshot.baseVersion(), uri, snapshot, e.getMessage());
        }
    }
}
