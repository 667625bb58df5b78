package io.walsink.table.catalog;

import io.walsink.format.table.LanceTables;
import io.walsink.maintenance.schema.AddedColumns;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.table.ExistingTable;
import io.walsink.table.WalSinkTableConfig;
import io.walsink.table.WalSinkTableOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.configuration.Configuration;
import org.lance.Dataset;

/**
 * The tables of one warehouse folder: table {@code name} is the Lance dataset {@code
 * <root>/<name>.lance}, the layout of Lance's directory namespace, so LanceDB's {@code
 * connect(root).openTable(name)} opens what the catalog lists. The {@code WITH} options a table was
 * created with are kept in the dataset's own config (Lance table config keys under {@link
 * #OPTION_PREFIX}), so they travel with the table and need no side store.
 */
final class Warehouse implements AutoCloseable {
    static final String SUFFIX = ".lance";
    static final String OPTION_PREFIX = "walsink.option.";
    /** Names a folder can hold on every store, and that LanceDB accepts as a table name. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

    private final String root;
    private final Map<String, String> s3Options;
    private final ObjectStore store;

    /**
     * @param root the warehouse, {@code file:///dir}, a local directory, or {@code s3://bucket/prefix}
     * @param s3Options the catalog's {@code s3.*} options, which every table of it uses
     */
    Warehouse(String root, Map<String, String> s3Options) {
        this.root = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        this.s3Options = Map.copyOf(s3Options);
        this.store = ObjectStores.open(this.root, config(this.root).s3());
    }

    /** The tables, by name: folders {@code <name>.lance} that hold a Lance dataset. */
    List<String> tableNames() {
        List<String> names = new ArrayList<>();
        for (String folder : store.listFolders("")) {
            String name = folder.substring(0, folder.length() - 1);
            if (name.endsWith(SUFFIX) && store.listFolders(folder).contains(folder + "_versions/")) {
                names.add(name.substring(0, name.length() - SUFFIX.length()));
            }
        }
        return names;
    }

    /** The table's {@code path} option. */
    String path(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + name + "' cannot name a table of the warehouse " + root
                    + ": use letters, digits, '_', '-' and '.', not starting with '-' or '.'");
        }
        return root + "/" + name + SUFFIX;
    }

    /** The options a table of this warehouse is read and written with besides its own: its path and the catalog's S3 settings. */
    Map<String, String> locationOptions(String name) {
        Map<String, String> options = new LinkedHashMap<>(s3Options);
        options.put(WalSinkTableOptions.PATH.key(), path(name));
        return options;
    }

    Optional<ExistingTable> open(String name) {
        return ExistingTable.at(config(path(name)));
    }

    /** The {@code WITH} options the table was created with. */
    Map<String, String> storedOptions(String name) {
        Map<String, String> options = new LinkedHashMap<>();
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = dataset(allocator, name)) {
            ds.getConfig().forEach((key, value) -> {
                if (key.startsWith(OPTION_PREFIX)) {
                    options.put(key.substring(OPTION_PREFIX.length()), value);
                }
            });
        }
        return options;
    }

    /** Keeps {@code options} in the table's config, as one Lance commit. */
    void storeOptions(String name, Map<String, String> options) {
        Map<String, String> config = new HashMap<>();
        options.forEach((key, value) -> config.put(OPTION_PREFIX + key, value));
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = dataset(allocator, name)) {
            ds.updateConfig(config);
        }
    }

    /** Removes the table's folder: its base table, WAL entries, SSTables and manifests. */
    void drop(String name) {
        WalSinkTableConfig table = config(path(name));
        Dataset.drop(table.lanceUri(), table.lanceStorageOptions());
    }

    /** The catalog's S3 settings, for the maintenance that opens a table by path. */
    S3Options s3() {
        return config(root).s3();
    }

    /** Adds nullable columns at the end of the table ({@link AddedColumns}). */
    void addColumns(String name, List<Field> columns) {
        WalSinkTableConfig table = config(path(name));
        AddedColumns.add(path(name), s3(), table.lanceUri(), table.lanceStorageOptions(), columns);
    }

    /** The table's base Lance dataset, at its latest version. */
    Dataset dataset(BufferAllocator allocator, String name) {
        WalSinkTableConfig table = config(path(name));
        return LanceTables.openDataset(allocator, table.lanceUri(), table.lanceStorageOptions());
    }

    private WalSinkTableConfig config(String path) {
        Map<String, String> options = new LinkedHashMap<>(s3Options);
        options.put(WalSinkTableOptions.PATH.key(), path);
        return WalSinkTableConfig.from(Configuration.fromMap(options));
    }

    @Override
    public String toString() {
        return root;
    }

    @Override
    public void close() throws Exception {
        store.close();
    }
}
