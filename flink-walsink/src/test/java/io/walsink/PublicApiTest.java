package io.walsink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import io.walsink.annotation.Internal;
import io.walsink.annotation.PublicEvolving;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What a user may rely on is marked: every public top-level type carries exactly one of
 * {@link PublicEvolving} or {@link Internal}, and the API is the small set the README documents.
 */
class PublicApiTest {
    private static final List<String> API = List.of(
            "io.walsink.flink.WalSink",
            "io.walsink.flink.WalSinkBuilder",
            "io.walsink.flink.SinkOptions",
            "io.walsink.table.WalSinkTableOptions",
            "io.walsink.read.TableReader",
            "io.walsink.read.TableRows",
            "io.walsink.read.ReadMode",
            "io.walsink.read.NearestQuery",
            "io.walsink.read.Neighbour",
            "io.walsink.read.TextQuery",
            "io.walsink.read.TextHit",
            "io.walsink.maintenance.Compactor",
            "io.walsink.maintenance.CompactorOptions",
            "io.walsink.maintenance.CompactionResult",
            "io.walsink.storage.S3Options",
            "io.walsink.format.wal.WalSchemaProfile",
            "io.walsink.format.table.MaintainedIndex");

    @Test
    void everyPublicTypeIsMarkedOnce() {
        classes()
                .that()
                .arePublic()
                .and()
                .areTopLevelClasses()
                .and()
                .resideOutsideOfPackage("io.walsink.annotation")
                .should()
                .beAnnotatedWith(PublicEvolving.class)
                .orShould()
                .beAnnotatedWith(Internal.class)
                .check(LayeringTest.MAIN);
        classes()
                .that()
                .areAnnotatedWith(PublicEvolving.class)
                .should()
                .notBeAnnotatedWith(Internal.class)
                .check(LayeringTest.MAIN);
    }

    @Test
    void theApiIsTheDocumentedTypesAndTheExceptions() {
        TreeSet<String> marked = new TreeSet<>();
        for (JavaClass c : LayeringTest.MAIN) {
            if (c.isTopLevelClass()
                    && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && c.isAnnotatedWith(PublicEvolving.class)
                    && !c.isAssignableTo(RuntimeException.class)) {
                marked.add(c.getName());
            }
        }
        assertThat(marked).containsExactlyInAnyOrderElementsOf(API);
    }
}
