package io.walsink.table.catalog;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.table.ExistingTable;
import io.walsink.table.WalSinkTableFactory;
import io.walsink.table.WalSinkTableOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.ProcedureNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code CREATE CATALOG lake WITH ('type' = 'walsink', 'warehouse' = ...)}: the warehouse folder's
 * Lance tables as Flink tables. A table's schema and primary key are read from the Lance table
 * itself, so tables LanceDB created in the same folder are listed and readable; the {@code WITH}
 * options of a table created here are kept in it, so {@code INSERT} and {@code SELECT} repeat none.
 * The default database is the warehouse root, where LanceDB's {@code connect(root)} looks; {@code
 * CREATE DATABASE db} makes the sub-folder {@code <root>/db/} another ({@link Warehouse}).
 */
@Internal
public final class WalSinkCatalog extends TablesOnlyCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(WalSinkCatalog.class);
    /** Keys of a database's marker (CREATE DATABASE ... COMMENT ... WITH (...)). */
    private static final String COMMENT = "comment";

    private static final String PROPERTY = "property.";

    private final String warehouseRoot;
    private final Map<String, String> s3Options;
    private Warehouse warehouse;
    private Map<String, Procedure> procedures = Map.of();

    public WalSinkCatalog(String name, String defaultDatabase, String warehouseRoot, Map<String, String> s3Options) {
        super(name, defaultDatabase);
        this.warehouseRoot = warehouseRoot;
        this.s3Options = Map.copyOf(s3Options);
    }

    @Override
    public void open() {
        warehouse = new Warehouse(warehouseRoot, s3Options);
        procedures = TableProcedures.of(warehouse);
        LOG.info(
                "walsink catalog '{}' opened on {}: {} tables",
                getName(),
                warehouse,
                warehouse.tableNames(null).size());
    }

    @Override
    public void close() {
        if (warehouse != null) {
            try {
                warehouse.close();
            } catch (Exception e) {
                throw new CatalogException("Closing the walsink catalog '" + getName() + "' failed", e);
            }
        }
    }

    @Override
    public List<String> listDatabases() {
        List<String> databases = new ArrayList<>(List.of(getDefaultDatabase()));
        warehouse.databases().stream()
                .filter(d -> !d.equals(getDefaultDatabase()) && !d.equals(TableProcedures.DATABASE))
                .forEach(databases::add);
        return databases;
    }

    @Override
    public CatalogDatabase getDatabase(String database) throws DatabaseNotExistException {
        requireDatabase(database);
        String folder = folder(database);
        if (folder == null) {
            return new CatalogDatabaseImpl(Map.of(), "the tables of " + warehouse);
        }
        Properties marker = warehouse.databaseProperties(folder);
        Map<String, String> properties = new LinkedHashMap<>();
        marker.stringPropertyNames().stream()
                .filter(k -> k.startsWith(PROPERTY))
                .sorted()
                .forEach(k -> properties.put(k.substring(PROPERTY.length()), marker.getProperty(k)));
        return new CatalogDatabaseImpl(
                properties, marker.getProperty(COMMENT, "the tables of " + warehouse + "/" + folder));
    }

    @Override
    public boolean databaseExists(String database) {
        return getDefaultDatabase().equals(database)
                || !TableProcedures.DATABASE.equals(database) && warehouse.exists(database);
    }

    /** The database's folder under the warehouse: null for the default database, the root. */
    private String folder(String database) {
        return getDefaultDatabase().equals(database) ? null : database;
    }

    @Override
    public void createDatabase(String database, CatalogDatabase definition, boolean ignoreIfExists)
            throws DatabaseAlreadyExistException {
        if (TableProcedures.DATABASE.equals(database)) {
            throw new CatalogException("'" + database + "' names the walsink catalog's procedures (CALL " + getName()
                    + "." + database + ".compact(...)); choose another database name");
        }
        if (databaseExists(database)) {
            if (ignoreIfExists) {
                return;
            }
            throw new DatabaseAlreadyExistException(getName(), database);
        }
        Properties marker = new Properties();
        definition.getProperties().forEach((k, v) -> marker.setProperty(PROPERTY + k, v));
        if (definition.getComment() != null) {
            marker.setProperty(COMMENT, definition.getComment());
        }
        try {
            warehouse.createDatabase(database, marker);
        } catch (IllegalArgumentException e) {
            throw new CatalogException(e.getMessage(), e);
        } catch (ObjectAlreadyExistsException e) { // created meanwhile
            if (!ignoreIfExists) {
                throw new DatabaseAlreadyExistException(getName(), database, e);
            }
        }
        LOG.info("walsink catalog '{}' created database {} at {}/{}/", getName(), database, warehouse, database);
    }

    @Override
    public void dropDatabase(String database, boolean ignoreIfNotExists, boolean cascade)
            throws DatabaseNotExistException, DatabaseNotEmptyException {
        if (getDefaultDatabase().equals(database)) {
            throw new CatalogException("The database '" + database + "' of the walsink catalog '" + getName()
                    + "' is the warehouse " + warehouse + " and is not dropped; drop its tables one by one");
        }
        if (!databaseExists(database)) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new DatabaseNotExistException(getName(), database);
        }
        List<String> tables = warehouse.tableNames(database);
        if (!tables.isEmpty() && !cascade) {
            throw new DatabaseNotEmptyException(getName(), database);
        }
        for (String table : tables) {
            warehouse.drop(database, table);
            LOG.info("walsink catalog '{}' dropped table {}.{}", getName(), database, table);
        }
        warehouse.dropDatabase(database);
        LOG.info("walsink catalog '{}' dropped database {}", getName(), database);
    }

    @Override
    public void alterDatabase(String database, CatalogDatabase definition, boolean ignoreIfNotExists) {
        throw new CatalogException("The databases of the walsink catalog '" + getName()
                + "' are folders; their properties are not altered");
    }

    @Override
    void requireDatabase(String database) throws DatabaseNotExistException {
        if (!databaseExists(database)) {
            throw new DatabaseNotExistException(getName(), database);
        }
    }

    @Override
    void requireTable(ObjectPath table) throws TableNotExistException {
        if (!tableExists(table)) {
            throw new TableNotExistException(getName(), table);
        }
    }

    @Override
    public List<String> listTables(String database) throws DatabaseNotExistException {
        requireDatabase(database);
        return warehouse.tableNames(folder(database));
    }

    @Override
    public boolean tableExists(ObjectPath table) {
        return databaseExists(table.getDatabaseName())
                && warehouse.tableNames(folder(table.getDatabaseName())).contains(table.getObjectName());
    }

    @Override
    public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException {
        return table(path, null);
    }

    /**
     * {@code FOR SYSTEM_TIME AS OF TIMESTAMP '...'}: the table as a bounded read of the base table
     * version that was the latest at {@code timestamp} (epoch milliseconds, converted from the
     * session's time zone by the planner), as {@code 'scan.timestamp'} reads it.
     */
    @Override
    public CatalogBaseTable getTable(ObjectPath path, long timestamp) throws TableNotExistException {
        return table(path, timestamp);
    }

    private CatalogTable table(ObjectPath path, Long timestamp) throws TableNotExistException {
        if (!databaseExists(path.getDatabaseName())) {
            throw new TableNotExistException(getName(), path);
        }
        String database = folder(path.getDatabaseName());
        String name = path.getObjectName();
        Optional<ExistingTable> existing;
        try {
            existing = warehouse.open(database, name);
        } catch (IllegalArgumentException badName) {
            throw new TableNotExistException(getName(), path, badName);
        }
        if (existing.isEmpty()) {
            throw new TableNotExistException(getName(), path);
        }
        Map<String, String> options = new LinkedHashMap<>(warehouse.storedOptions(database, name));
        options.putAll(warehouse.locationOptions(database, name));
        options.put(FactoryUtil.CONNECTOR.key(), WalSinkTableFactory.IDENTIFIER);
        if (timestamp != null) {
            options.put(WalSinkTableOptions.SCAN_TIMESTAMP.key(), Long.toString(timestamp));
            options.put(WalSinkTableOptions.SCAN_STARTUP_MODE.key(), "snapshot");
        }
        return CatalogTable.newBuilder()
                .schema(schema(existing.get()))
                .comment("Lance table " + warehouse.path(database, name))
                .options(options)
                .snapshot(timestamp)
                .build();
    }

    /** The Lance table's columns as Flink types; key columns are NOT NULL, as Flink requires of a primary key. */
    private static Schema schema(ExistingTable table) {
        RowType row = FlinkArrowTypes.toRowType(table.schema());
        Schema.Builder schema = Schema.newBuilder();
        for (RowType.RowField field : row.getFields()) {
            boolean key = table.primaryKey().contains(field.getName());
            schema.column(
                    field.getName(),
                    TypeConversions.fromLogicalToDataType(key ? field.getType().copy(false) : field.getType()));
        }
        if (!table.primaryKey().isEmpty()) {
            schema.primaryKey(table.primaryKey());
        }
        return schema.build();
    }

    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException, DatabaseNotExistException {
        requireDatabase(path.getDatabaseName());
        if (!(table instanceof ResolvedCatalogTable resolved)) {
            throw new CatalogException("The walsink catalog '" + getName() + "' holds Lance tables only, not "
                    + table.getTableKind() + "s: create views in Flink's default catalog");
        }
        String name = path.getObjectName();
        String database = folder(path.getDatabaseName());
        String location;
        try {
            location = warehouse.path(database, name); // a name no folder can hold fails here
        } catch (IllegalArgumentException badName) {
            throw new ValidationException(badName.getMessage(), badName);
        }
        if (tableExists(path)) {
            if (ignoreIfExists) {
                return;
            }
            throw new TableAlreadyExistException(getName(), path);
        }
        Map<String, String> own = tableOptions(name, location, resolved.getOptions());
        Map<String, String> options = new LinkedHashMap<>(own);
        options.putAll(warehouse.locationOptions(database, name));
        options.put(FactoryUtil.CONNECTOR.key(), WalSinkTableFactory.IDENTIFIER);
        WalSinkTableFactory.createTable(new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of(getName(), path.getDatabaseName(), name),
                resolved.copy(options),
                Map.of(),
                new Configuration(),
                Thread.currentThread().getContextClassLoader(),
                false));
        warehouse.storeOptions(database, name, own);
        LOG.info("walsink catalog '{}' created table {} at {} with options {}", getName(), name, location, own);
    }

    /** The options a table keeps: its own {@code WITH} options, without what the catalog decides. */
    private Map<String, String> tableOptions(String name, String location, Map<String, String> given) {
        Map<String, String> own = new LinkedHashMap<>(given);
        String connector = own.remove(FactoryUtil.CONNECTOR.key());
        if (connector != null && !connector.equals(WalSinkTableFactory.IDENTIFIER)) {
            throw new ValidationException("The walsink catalog '" + getName() + "' holds walsink tables; table '" + name
                    + "' names 'connector' = '" + connector + "': create it in another catalog");
        }
        if (own.containsKey(WalSinkTableOptions.PATH.key())) {
            throw new ValidationException("The walsink catalog '" + getName() + "' places table '" + name + "' at "
                    + location + ": remove the 'path' option");
        }
        for (String key : new HashSet<>(own.keySet())) {
            if (key.startsWith("s3.")) {
                throw new ValidationException("Table '" + name + "' sets '" + key + "': the tables of the walsink"
                        + " catalog '" + getName() + "' use the catalog's S3 options; set it in CREATE CATALOG");
            }
        }
        return own;
    }

    @Override
    public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException {
        if (!tableExists(path)) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new TableNotExistException(getName(), path);
        }
        warehouse.drop(folder(path.getDatabaseName()), path.getObjectName());
        LOG.info("walsink catalog '{}' dropped table {}", getName(), path.getFullName());
    }

    @Override
    public void renameTable(ObjectPath path, String newName, boolean ignoreIfNotExists) {
        throw new CatalogException("walsink tables are not renamed: running jobs, consumer records and LanceDB"
                + " address table '" + path.getObjectName() + "' by its folder");
    }

    @Override
    public List<String> listProcedures(String database) throws DatabaseNotExistException {
        if (TableProcedures.DATABASE.equals(database)) {
            return List.copyOf(procedures.keySet());
        }
        requireDatabase(database);
        return List.of();
    }

    @Override
    public Procedure getProcedure(ObjectPath path) throws ProcedureNotExistException {
        Procedure procedure =
                TableProcedures.DATABASE.equals(path.getDatabaseName()) ? procedures.get(path.getObjectName()) : null;
        if (procedure == null) {
            throw new ProcedureNotExistException(getName(), path);
        }
        return procedure;
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfNotExists) {
        throw new CatalogException("The walsink catalog '" + getName() + "' alters tables by their changes only");
    }

    @Override
    public void alterTable(
            ObjectPath path, CatalogBaseTable table, List<TableChange> changes, boolean ignoreIfNotExists)
            throws TableNotExistException {
        if (!tableExists(path)) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new TableNotExistException(getName(), path);
        }
        TableEvolution.apply(warehouse, getName(), folder(path.getDatabaseName()), path.getObjectName(), changes);
    }
}
