package io.walsink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.TableRollback;
import io.walsink.read.TableReader;
import org.junit.jupiter.api.Test;

/**
 * The package layers of docs/architecture.md, checked on the compiled main classes (so a fully
 * qualified name in code counts as much as an import): each layer uses only the layers below it,
 * and only {@code flink} and {@code table} touch Flink.
 *
 * <pre>
 * table       -> flink, read, maintenance, recovery, shard, format, storage, error
 * flink       -> maintenance, recovery, shard, format, storage, error   (not read, not table)
 * read        -> shard, format, storage, error    (no Flink); inside it, TableReader -> read.search -> read.snapshot,
 *                read.scan and read.lookup -> read.snapshot, and all of them -> the API's values
 * maintenance -> recovery, shard, format, storage, error    (no Flink; not read); inside it, Compactor and
 *                maintenance.schema -> maintenance.compaction -> maintenance.index and maintenance.gc, maintenance.migration apart;
 *                TableRollback -> maintenance.rollback;
 *                and all of them -> the API's values
 * recovery    -> shard, format, storage, error    (no Flink)
 * shard   -> format, storage, error; inside it, driver -> shard (the writer) -> shard.io -> shard.memtable
 * inside flink: flink.internal -> .state -> .routing, flink.internal -> .memory; convert.writers -> convert
 * format  -> storage, error
 * storage -> error
 * error   -> nothing but java.*
 * </pre>
 *
 * <p>{@code io.walsink.annotation} (stability marks) may be used by every layer and uses nothing.
 */
class LayeringTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.walsink");

    @Test
    void eachLayerUsesOnlyTheLayersBelowIt() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitecture()
                .layer("table")
                .definedBy("io.walsink.table..")
                .layer("flink")
                .definedBy("io.walsink.flink..")
                .layer("read")
                .definedBy("io.walsink.read..")
                .layer("maintenance")
                .definedBy("io.walsink.maintenance..")
                .layer("recovery")
                .definedBy("io.walsink.recovery..")
                .layer("shard")
                .definedBy("io.walsink.shard..")
                .layer("format")
                .definedBy("io.walsink.format..")
                .layer("storage")
                .definedBy("io.walsink.storage..")
                .layer("error")
                .definedBy("io.walsink.error..")
                .layer("annotation")
                .definedBy("io.walsink.annotation..")
                .whereLayer("table")
                .mayOnlyAccessLayers(
                        "flink", "read", "maintenance", "recovery", "shard", "format", "storage", "error", "annotation")
                .whereLayer("flink")
                .mayOnlyAccessLayers("maintenance", "recovery", "shard", "format", "storage", "error", "annotation")
                .whereLayer("read")
                .mayOnlyAccessLayers("shard", "format", "storage", "error", "annotation")
                .whereLayer("maintenance")
                .mayOnlyAccessLayers("recovery", "shard", "format", "storage", "error", "annotation")
                .whereLayer("recovery")
                .mayOnlyAccessLayers("shard", "format", "storage", "error", "annotation")
                .whereLayer("shard")
                .mayOnlyAccessLayers("format", "storage", "error", "annotation")
                .whereLayer("format")
                .mayOnlyAccessLayers("storage", "error", "annotation")
                .whereLayer("storage")
                .mayOnlyAccessLayers("error", "annotation")
                .whereLayer("error")
                .mayOnlyAccessLayers("annotation")
                .whereLayer("annotation")
                .mayNotAccessAnyLayer()
                .check(MAIN);
    }

    /**
     * Inside the shard engine: the writer ({@code shard}) over its I/O tasks ({@code shard.io}) over
     * the rows in memory ({@code shard.memtable}); the drivers that schedule writers on top.
     */
    @Test
    void theShardEngineIsLayeredByConcern() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("driver")
                .definedBy("io.walsink.shard.driver..")
                .layer("writer")
                .definedBy("io.walsink.shard")
                .layer("io")
                .definedBy("io.walsink.shard.io..")
                .layer("memtable")
                .definedBy("io.walsink.shard.memtable..")
                .whereLayer("driver")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("writer")
                .mayOnlyBeAccessedByLayers("driver")
                .whereLayer("io")
                .mayOnlyBeAccessedByLayers("writer", "driver")
                .whereLayer("memtable")
                .mayOnlyBeAccessedByLayers("io", "writer", "driver")
                .check(MAIN);
    }

    /**
     * Inside the reader: the user's entry point ({@code TableReader}) on the searches and the
     * snapshot machinery, the Flink sources' scans and lookups beside the searches, everything on
     * {@code read.snapshot}; the API's values ({@code ReadMode}, the queries, their answers,
     * {@code TableRows}) at the bottom, used by all and using none. So the machinery never reaches
     * back up to {@code TableReader}, and the API package and its sub-packages form no loop of files.
     */
    @Test
    void theReaderIsLayeredByConcern() {
        DescribedPredicate<JavaClass> entry = JavaClass.Predicates.belongToAnyOf(TableReader.class);
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("entry")
                .definedBy(entry)
                .layer("search")
                .definedBy("io.walsink.read.search..")
                .layer("scan")
                .definedBy("io.walsink.read.scan..")
                .layer("lookup")
                .definedBy("io.walsink.read.lookup..")
                .layer("snapshot")
                .definedBy("io.walsink.read.snapshot..")
                .layer("values")
                .definedBy(
                        JavaClass.Predicates.resideInAPackage("io.walsink.read").and(DescribedPredicate.not(entry)))
                .whereLayer("entry")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("search")
                .mayOnlyBeAccessedByLayers("entry")
                .whereLayer("scan")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("lookup")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("snapshot")
                .mayOnlyBeAccessedByLayers("entry", "search", "scan", "lookup")
                .whereLayer("values")
                .mayNotAccessAnyLayer()
                .check(MAIN);
    }

    /**
     * Inside the Flink layer: the operator ({@code flink.internal}) over what it checkpoints
     * ({@code .state}), its memory ({@code .memory}) and its bucket routing ({@code .routing}),
     * which the state uses too; the RowData-to-Arrow writers over the conversions they build on.
     */
    @Test
    void theFlinkLayerIsLayeredByConcern() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("operator")
                .definedBy("io.walsink.flink.internal")
                .layer("state")
                .definedBy("io.walsink.flink.internal.state..")
                .layer("memory")
                .definedBy("io.walsink.flink.internal.memory..")
                .layer("routing")
                .definedBy("io.walsink.flink.internal.routing..")
                .layer("writers")
                .definedBy("io.walsink.flink.convert.writers..")
                .layer("convert")
                .definedBy("io.walsink.flink.convert")
                .whereLayer("operator")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("state")
                .mayOnlyBeAccessedByLayers("operator")
                .whereLayer("memory")
                .mayOnlyBeAccessedByLayers("operator")
                .whereLayer("routing")
                .mayOnlyBeAccessedByLayers("operator", "state")
                .whereLayer("writers")
                .mayOnlyBeAccessedByLayers("operator")
                .check(MAIN);
    }

    /**
     * Inside maintenance: the user's entry points ({@code Compactor}, {@code TableRollback}) and the
     * column addition (which merges and commits its columns under one lease) on the compaction
     * engine, which uses the base table's index upkeep and what garbage collection knows of live
     * consumers, and on the rollback engine; the shard id migration apart; the API's values ({@code
     * CompactorOptions}, {@code CompactionResult})
     * at the bottom, used by all and using none. So the engine never reaches back up to the API type
     * users run, and collection, indexes and migration stay usable on their own.
     */
    @Test
    void maintenanceIsLayeredByConcern() {
        DescribedPredicate<JavaClass> entry = JavaClass.Predicates.belongToAnyOf(Compactor.class, TableRollback.class);
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("entry")
                .definedBy(entry)
                .layer("schema")
                .definedBy("io.walsink.maintenance.schema..")
                .layer("compaction")
                .definedBy("io.walsink.maintenance.compaction..")
                .layer("index")
                .definedBy("io.walsink.maintenance.index..")
                .layer("gc")
                .definedBy("io.walsink.maintenance.gc..")
                .layer("migration")
                .definedBy("io.walsink.maintenance.migration..")
                .layer("rollback")
                .definedBy("io.walsink.maintenance.rollback..")
                .layer("values")
                .definedBy(JavaClass.Predicates.resideInAPackage("io.walsink.maintenance")
                        .and(DescribedPredicate.not(entry)))
                .whereLayer("entry")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("schema")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("compaction")
                .mayOnlyBeAccessedByLayers("entry", "schema")
                .whereLayer("index")
                .mayOnlyBeAccessedByLayers("compaction")
                .whereLayer("gc")
                .mayOnlyBeAccessedByLayers("compaction")
                .whereLayer("migration")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("rollback")
                .mayOnlyBeAccessedByLayers("entry")
                .whereLayer("values")
                .mayNotAccessAnyLayer()
                .check(MAIN);
    }

    @Test
    void onlyFlinkAndTableUseFlink() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.walsink.annotation..",
                        "io.walsink.error..",
                        "io.walsink.storage..",
                        "io.walsink.format..",
                        "io.walsink.shard..",
                        "io.walsink.recovery..",
                        "io.walsink.read..",
                        "io.walsink.maintenance..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.flink..")
                .because("the engine, the reader and maintenance must be testable and usable without Flink")
                .check(MAIN);
    }

    @Test
    void theErrorRootDependsOnTheJdkOnly() {
        classes()
                .that()
                .resideInAPackage("io.walsink.error..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "io.walsink.error..", "io.walsink.annotation..")
                .because("every layer extends it")
                .check(MAIN);
    }
}
