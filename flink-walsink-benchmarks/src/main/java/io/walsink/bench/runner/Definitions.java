package io.walsink.bench.runner;

import io.walsink.bench.support.TextTable;
import java.util.List;
import java.util.Optional;

/**
 * The registry of whole-job benchmark definitions, one per goal of docs/benchmarks.md: a new
 * benchmark is a small definition class and one line here.
 */
public final class Definitions {
    private static final List<Definition> ALL = List.of(
            Q1Definition.DEFINITION,
            EngineDefinition.DEFINITION,
            ManyBucketsDefinition.DEFINITION,
            PipelineLatencyDefinition.DEFINITION,
            ScanDefinition.DEFINITION,
            MaintenanceDefinition.DEFINITION,
            LookupDefinition.DEFINITION,
            IndexDefinition.DEFINITION,
            VectorQueryDefinition.DEFINITION,
            RestoreDefinition.DEFINITION,
            S3LatencyDefinition.DEFINITION,
            NativeMemoryDefinition.DEFINITION,
            FloorDefinition.DEFINITION,
            SqlVsPaimonDefinition.DEFINITION);

    private Definitions() {}

    public static List<Definition> all() {
        return ALL;
    }

    public static Optional<Definition> named(String name) {
        return ALL.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /** As {@link #named}, for callers that know the name exists (tests). */
    public static Definition get(String name) {
        return named(name).orElseThrow(() -> new IllegalArgumentException("no benchmark '" + name + "'"));
    }

    /** {@code --list}: each definition's name and goal. */
    static String list() {
        TextTable table = new TextTable("name", "goal");
        ALL.forEach(d -> table.row(d.name(), d.goal()));
        return table.render();
    }
}
