package io.walsink.table.catalog;

import java.util.List;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;

/**
 * What a catalog of Lance tables answers for what Lance tables do not have: partitions (walsink
 * shards by bucket inside the table, not by partition folders), functions and views (the
 * warehouse holds datasets only; Flink's default catalog keeps those), and stored statistics.
 * Listing answers empty; creating fails naming the reason.
 */
abstract class TablesOnlyCatalog extends AbstractCatalog {

    TablesOnlyCatalog(String name, String defaultDatabase) {
        super(name, defaultDatabase);
    }

    /** Fails with {@link DatabaseNotExistException} unless {@code database} is one of this catalog's. */
    abstract void requireDatabase(String database) throws DatabaseNotExistException;

    /** Fails with {@link TableNotExistException} unless the table exists. */
    abstract void requireTable(ObjectPath table) throws TableNotExistException;

    private CatalogException unsupported(String what) {
        return new CatalogException("The walsink catalog '" + getName() + "' holds Lance tables only: " + what);
    }

    @Override
    public List<String> listViews(String database) throws DatabaseNotExistException {
        requireDatabase(database);
        return List.of();
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath table)
            throws TableNotExistException, TableNotPartitionedException {
        requireTable(table);
        throw new TableNotPartitionedException(getName(), table);
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath table, CatalogPartitionSpec spec)
            throws TableNotExistException, TableNotPartitionedException {
        return listPartitions(table);
    }

    @Override
    public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath table, List<Expression> filters)
            throws TableNotExistException, TableNotPartitionedException {
        return listPartitions(table);
    }

    @Override
    public CatalogPartition getPartition(ObjectPath table, CatalogPartitionSpec spec)
            throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), table, spec);
    }

    @Override
    public boolean partitionExists(ObjectPath table, CatalogPartitionSpec spec) {
        return false;
    }

    @Override
    public void createPartition(
            ObjectPath table, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignoreIfExists)
            throws TableNotExistException, TableNotPartitionedException {
        listPartitions(table);
    }

    @Override
    public void dropPartition(ObjectPath table, CatalogPartitionSpec spec, boolean ignoreIfNotExists)
            throws PartitionNotExistException {
        if (!ignoreIfNotExists) {
            throw new PartitionNotExistException(getName(), table, spec);
        }
    }

    @Override
    public void alterPartition(
            ObjectPath table, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignoreIfNotExists)
            throws PartitionNotExistException {
        dropPartition(table, spec, ignoreIfNotExists);
    }

    @Override
    public List<String> listFunctions(String database) throws DatabaseNotExistException {
        requireDatabase(database);
        return List.of();
    }

    @Override
    public CatalogFunction getFunction(ObjectPath function) throws FunctionNotExistException {
        throw new FunctionNotExistException(getName(), function);
    }

    @Override
    public boolean functionExists(ObjectPath function) {
        return false;
    }

    @Override
    public void createFunction(ObjectPath function, CatalogFunction definition, boolean ignoreIfExists) {
        throw unsupported("create functions in Flink's default catalog");
    }

    @Override
    public void alterFunction(ObjectPath function, CatalogFunction definition, boolean ignoreIfNotExists)
            throws FunctionNotExistException {
        if (!ignoreIfNotExists) {
            throw new FunctionNotExistException(getName(), function);
        }
    }

    @Override
    public void dropFunction(ObjectPath function, boolean ignoreIfNotExists) throws FunctionNotExistException {
        alterFunction(function, null, ignoreIfNotExists);
    }

    @Override
    public CatalogTableStatistics getTableStatistics(ObjectPath table) throws TableNotExistException {
        requireTable(table);
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getTableColumnStatistics(ObjectPath table) throws TableNotExistException {
        requireTable(table);
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public CatalogTableStatistics getPartitionStatistics(ObjectPath table, CatalogPartitionSpec spec)
            throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), table, spec);
    }

    @Override
    public CatalogColumnStatistics getPartitionColumnStatistics(ObjectPath table, CatalogPartitionSpec spec)
            throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), table, spec);
    }

    @Override
    public void alterTableStatistics(ObjectPath table, CatalogTableStatistics statistics, boolean ignoreIfNotExists) {
        throw unsupported("statistics are not stored (a Lance table counts its rows itself)");
    }

    @Override
    public void alterTableColumnStatistics(
            ObjectPath table, CatalogColumnStatistics statistics, boolean ignoreIfNotExists) {
        throw unsupported("statistics are not stored");
    }

    @Override
    public void alterPartitionStatistics(
            ObjectPath table, CatalogPartitionSpec spec, CatalogTableStatistics statistics, boolean ignoreIfNotExists)
            throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), table, spec);
    }

    @Override
    public void alterPartitionColumnStatistics(
            ObjectPath table, CatalogPartitionSpec spec, CatalogColumnStatistics statistics, boolean ignoreIfNotExists)
            throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), table, spec);
    }
}
