package io.walsink.table.catalog;

import io.walsink.format.table.LanceTables;
import io.walsink.maintenance.schema.AddedColumns;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.table.ExistingTable;
import io.walsink.table.WalSinkTableConfig;
import io.walsink.table.WalSinkTableOptions;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.configuration.Configuration;
import org.lance.Dataset;

/**
 * The tables of one warehouse folder: table {@code name} is the Lance dataset {@code
 * <root>/<name>.lance}, the layout of Lance's directory namespace, so LanceDB's {@code
 * connect(root).openTable(name)} opens what the catalog lists. A database {@code db} other than
 * the root is the sub-folder {@code <root>/<db>/}, holding its tables the same way (LanceDB: {@code
 * connect(<root>/<db>)}) and a marker object that keeps it when it has no table yet. Every method
 * takes the database as a folder name, null for the root. The {@code WITH} options a table was
 * created with are kept in the dataset's own config (Lance table config keys under {@link
 * #OPTION_PREFIX}), so they travel with the table and need no side store.
 */
final class Warehouse implements AutoCloseable {
    static final String SUFFIX = ".lance";
    static final String OPTION_PREFIX = "walsink.option.";
    /** The object that makes {@code <root>/<db>/} a database: its comment and properties. */
    static final String DATABASE_MARKER = "walsink-database.properties";
    /** Names a folder can hold on every store, and that LanceDB accepts as a table name. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");
    /** As {@link #NAME} without '.': a database folder never reads as a table's {@code .lance}. */
    private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");

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

    /** The tables of the database, by name: folders {@code <name>.lance} that hold a Lance dataset. */
    List<String> tableNames(String database) {
        String prefix = database == null ? "" : database + "/";
        List<String> names = new ArrayList<>();
        for (String folder : store.listFolders(prefix)) {
            String name = folder.substring(prefix.length(), folder.length() - 1);
            if (name.endsWith(SUFFIX) && store.listFolders(folder).contains(folder + "_versions/")) {
                names.add(name.substring(0, name.length() - SUFFIX.length()));
            }
        }
        return names;
    }

    /** The databases besides the root: sub-folders with a marker, or holding a table (LanceDB's). */
    List<String> databases() {
        List<String> databases = new ArrayList<>();
        for (String folder : store.listFolders("")) {
            String name = folder.substring(0, folder.length() - 1);
            if (DATABASE.matcher(name).matches() && exists(name)) {
                databases.add(name);
            }
        }
        return databases;
    }

    boolean exists(String database) {
        return database == null
                || DATABASE.matcher(database).matches()
                        && (store.exists(database + "/" + DATABASE_MARKER)
                                || !tableNames(database).isEmpty());
    }

    /** The database's marker: its comment under {@code comment}, its properties under {@code property.}. */
    Properties databaseProperties(String database) {
        Properties properties = new Properties();
        store.head(database + "/" + DATABASE_MARKER).ifPresent(meta -> {
            try {
                properties.load(new StringReader(new String(store.get(meta.key()), StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return properties;
    }

    /**
     * Writes the database's marker, put-if-absent.
     *
     * @throws io.walsink.storage.ObjectAlreadyExistsException if it exists
     */
    void createDatabase(String database, Properties properties) {
        requireDatabaseName(database);
        StringWriter text = new StringWriter();
        try {
            properties.store(text, "a database of the walsink catalog: the tables <name>.lance in this folder");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        store.putIfAbsent(database + "/" + DATABASE_MARKER, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Removes the database's marker and, where folders are real, its folder if nothing else is in it. */
    void dropDatabase(String database) {
        store.delete(database + "/" + DATABASE_MARKER);
        store.removeEmptyFolders(database + "/");
    }

    /** The table's {@code path} option. */
    String path(String database, String name) {
        requireName("table", name, NAME, "letters, digits, '_', '-' and '.', not starting with '-' or '.'");
        if (database != null) {
            requireDatabaseName(database);
        }
        return root + "/" + (database == null ? "" : database + "/") + name + SUFFIX;
    }

    static void requireDatabaseName(String database) {
        requireName("database", database, DATABASE, "letters, digits, '_' and '-', starting with a letter or digit");
    }

    /**
     * Refuses a name that would leave its folder or that a store or LanceDB cannot hold, naming why.
     *
     * @throws IllegalArgumentException naming the problem
     */
    static void requireName(String kind, String name, Pattern allowed, String rule) {
        String problem;
        if (name.isEmpty()) {
            problem = "is empty";
        } else if (name.equals(".") || name.equals("..")) {
            problem = "would name a folder outside its own";
        } else if (name.contains("/") || name.contains("\\")) {
            problem = "holds a path separator";
        } else if (!allowed.matcher(name).matches()) {
            problem = "is not made of " + rule;
        } else {
            return;
        }
        throw new IllegalArgumentException("'" + name + "' cannot name a " + kind + " of the walsink catalog: it "
                + problem + " (a " + kind + " is one folder of the warehouse; use " + rule + ")");
    }

    /** The options a table of this warehouse is read and written with besides its own: its path and the catalog's S3 settings. */
    Map<String, String> locationOptions(String database, String name) {
        Map<String, String> options = new LinkedHashMap<>(s3Options);
        options.put(WalSinkTableOptions.PATH.key(), path(database, name));
        return options;
    }

    Optional<ExistingTable> open(String database, String name) {
        return ExistingTable.at(config(path(database, name)));
    }

    /** The {@code WITH} options the table was created with. */
    Map<String, String> storedOptions(String database, String name) {
        Map<String, String> options = new LinkedHashMap<>();
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = dataset(allocator, database, name)) {
            ds.getConfig().forEach((key, value) -> {
                if (key.startsWith(OPTION_PREFIX)) {
                    options.put(key.substring(OPTION_PREFIX.length()), value);
                }
            });
        }
        return options;
    }

    /** Keeps {@code options} in the table's config, as one Lance commit. */
    void storeOptions(String database, String name, Map<String, String> options) {
        Map<String, String> config = new HashMap<>();
        options.forEach((key, value) -> config.put(OPTION_PREFIX + key, value));
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = dataset(allocator, database, name)) {
            ds.updateConfig(config);
        }
    }

    /** Removes the table's folder: its base table, WAL entries, SSTables and manifests. */
    void drop(String database, String name) {
        WalSinkTableConfig table = config(path(database, name));
        Dataset.drop(table.lanceUri(), table.lanceStorageOptions());
    }

    /** The catalog's S3 settings, for the maintenance that opens a table by path. */
    S3Options s3() {
        return config(root).s3();
    }

    /** Adds nullable columns at the end of the table ({@link AddedColumns}). */
    void addColumns(String database, String name, List<Field> columns) {
        String path = path(database, name);
        WalSinkTableConfig table = config(path);
        AddedColumns.add(path, s3(), table.lanceUri(), table.lanceStorageOptions(), columns);
    }

    /** The table's base Lance dataset, at its latest version. */
    Dataset dataset(BufferAllocator allocator, String database, String name) {
        WalSinkTableConfig table = config(path(database, name));
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
