package io.walsink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import io.walsink.annotation.Internal;
import io.walsink.annotation.PublicEvolving;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What a user may rely on is marked: every public top-level type carries exactly one of
 * {@link PublicEvolving} or {@link Internal}, and the API is the small set the README documents.
 *
 * <p>An API type also shows no more than the API: every type a public or protected member of it
 * names (a constructor's or method's parameters, its return type, its thrown types, a field's type,
 * and the type arguments of each, as well as the type's own supertypes), in the API types and in
 * their public nested types, must be
 *
 * <ul>
 *   <li>a primitive, or a {@code java.*} type of the JDK;
 *   <li>a walsink type marked {@link PublicEvolving} (the {@link #API} list and the exception
 *       family), or a type nested in one;
 *   <li>a type of Flink ({@code org.apache.flink}), Arrow ({@code org.apache.arrow}), lance-core
 *       ({@code org.lance}) or the AWS SDK ({@code software.amazon.awssdk}) not marked with Flink's
 *       own {@code @Internal}: the libraries a user's code already talks to, whose types walsink
 *       hands on rather than mirrors (Flink's rows and types, Arrow's allocator, lance-core's
 *       compaction and cleanup options, the S3 client's checksum settings).
 * </ul>
 *
 * Anything else (an {@link Internal} walsink type, an unmarked one, another library's) would make
 * a user depend on what walsink is free to change, so the build fails and names the member.
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
            "io.walsink.maintenance.RollbackResult",
            "io.walsink.maintenance.TableRollback",
            "io.walsink.maintenance.TableTags",
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
    void apiSignaturesNameOnlyApiJdkAndLibraryTypes() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : LayeringTest.MAIN) {
            if (!apiOrPublicNestedInApi(c)) {
                continue;
            }
            for (JavaType superType : superTypes(c)) {
                named(superType).stream()
                        .filter(t -> !allowedInApi(t))
                        .forEach(t -> violations.add(c.getName() + " extends " + t.getName()));
            }
            for (JavaMember member : c.getMembers()) {
                if (!exposed(member.getModifiers())) {
                    continue;
                }
                for (JavaClass t : signatureTypes(member)) {
                    if (!allowedInApi(t)) {
                        violations.add(member.getFullName() + " names " + t.getName());
                    }
                }
            }
        }
        assertThat(violations)
                .as("API members that name a type outside the API, the JDK, Flink, Arrow, lance-core and the AWS SDK")
                .isEmpty();
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

    private static boolean apiOrPublicNestedInApi(JavaClass c) {
        if (c.isTopLevelClass()) {
            return API.contains(c.getName());
        }
        return exposed(c.getModifiers())
                && c.getEnclosingClass()
                        .map(PublicApiTest::apiOrPublicNestedInApi)
                        .orElse(false);
    }

    private static boolean exposed(Set<JavaModifier> modifiers) {
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
                && !modifiers.contains(JavaModifier.SYNTHETIC)
                && !modifiers.contains(JavaModifier.BRIDGE);
    }

    private static List<JavaType> superTypes(JavaClass c) {
        List<JavaType> types = new ArrayList<>(c.getInterfaces());
        c.getSuperclass().ifPresent(types::add);
        return types;
    }

    /** Every type {@code member}'s signature names, type arguments and thrown types included. */
    private static Set<JavaClass> signatureTypes(JavaMember member) {
        Set<JavaClass> types = new LinkedHashSet<>();
        if (member instanceof JavaField field) {
            types.addAll(named(field.getType()));
        } else if (member instanceof JavaCodeUnit unit) {
            unit.getParameterTypes().forEach(t -> types.addAll(named(t)));
            types.addAll(named(unit.getReturnType()));
            unit.getThrowsClause().getTypes().forEach(t -> types.addAll(named(t)));
            unit.getTypeParameters().forEach(t -> types.addAll(named(t)));
        }
        return types;
    }

    private static Set<JavaClass> named(JavaType type) {
        Set<JavaClass> types = new LinkedHashSet<>();
        for (JavaClass raw : type.getAllInvolvedRawTypes()) {
            types.add(raw.isArray() ? raw.getBaseComponentType() : raw);
        }
        return types;
    }

    private static boolean allowedInApi(JavaClass type) {
        String name = type.getName();
        if (type.isPrimitive() || name.startsWith("java.")) {
            return true;
        }
        if (name.startsWith("io.walsink.")) {
            JavaClass outermost = type;
            while (outermost.getEnclosingClass().isPresent()) {
                outermost = outermost.getEnclosingClass().get();
            }
            return outermost.isAnnotatedWith(PublicEvolving.class) && !type.isAnnotatedWith(Internal.class);
        }
        return (name.startsWith("org.apache.flink.")
                        || name.startsWith("org.apache.arrow.")
                        || name.startsWith("org.lance.")
                        || name.startsWith("software.amazon.awssdk."))
                && !type.isAnnotatedWith("org.apache.flink.annotation.Internal");
    }
}
