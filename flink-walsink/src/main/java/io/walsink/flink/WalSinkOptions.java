package io.walsink.flink;

import io.walsink.annotation.Internal;
import io.walsink.flink.internal.memory.SinkSettings;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.Serializable;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a running sink needs to reach and write a table, shipped with the job graph.
 * Names follow the SQL options ({@code sink.flush-interval}, ...); see docs/configuration.md.
 */
@Internal
public final class WalSinkOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final S3Options s3;
    private final Map<String, String> lanceStorageOptions;
    private final String schemaProfile;
    private final SinkSettings settings;
    private final StoreWrapper storeWrapper;

    /**
     * Wraps the object store a writer opens: the hook through which tests put a faulty, counting or
     * gated store under a real job. Package-private: not part of the API.
     */
    @FunctionalInterface
    interface StoreWrapper extends Serializable {
        ObjectStore wrap(ObjectStore store);
    }

    WalSinkOptions(
            String path,
            S3Options s3,
            Map<String, String> lanceStorageOptions,
            WalSchemaProfile profile,
            SinkSettings settings,
            StoreWrapper storeWrapper) {
        this.path = Objects.requireNonNull(path, "path");
        StorageLocation.parse(path); // a malformed path fails while the job is built
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.lanceStorageOptions = Map.copyOf(lanceStorageOptions);
        this.schemaProfile = profile.profileName();
        this.settings = Objects.requireNonNull(settings, "settings");
        this.storeWrapper = storeWrapper == null ? store -> store : storeWrapper;
    }

    public String path() {
        return path;
    }

    /** The table location as lance-core expects it. */
    public String lanceUri() {
        return StorageLocation.parse(path).lanceUri();
    }

    public S3Options s3() {
        return s3;
    }

    /** Object-store options for lance-core (SSTable writes, table reads). */
    public Map<String, String> lanceStorageOptions() {
        return lanceStorageOptions;
    }

    /** The table as {@code store} (from {@link #openStore()}, closed by the caller) and lance-core reach it. */
    public TableLocation location(ObjectStore store) {
        return new TableLocation(store, lanceUri(), lanceStorageOptions);
    }

    public WalSchemaProfile schemaProfile() {
        return WalSchemaProfile.parse(schemaProfile);
    }

    /** Opens the table's object store (with retries), wrapped as configured. */
    public ObjectStore openStore() {
        return storeWrapper.wrap(ObjectStores.open(path, s3));
    }

    public int ioThreads() {
        return settings.get(SinkOptions.IO_THREADS);
    }

    /** The {@link SinkOptions} the sink runs with. */
    public SinkSettings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "WalSinkOptions{path=" + path + ", profile=" + schemaProfile + ", " + settings + ", s3=" + s3 + "}";
    }
}
