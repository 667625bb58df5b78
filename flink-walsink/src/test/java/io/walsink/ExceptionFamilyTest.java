package io.walsink;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.error.InputException;
import io.walsink.error.WalSinkException;
import io.walsink.format.FormatException;
import io.walsink.shard.io.ShardException;
import io.walsink.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every exception class of walsink belongs to one branch of {@link WalSinkException}, so a
 * caller can catch a kind of failure, and docs/operations.md ("Errors: which to catch") lists
 * every one of them.
 */
class ExceptionFamilyTest {

    static final List<Class<? extends WalSinkException>> BRANCHES =
            List.of(InputException.class, StorageException.class, FormatException.class, ShardException.class);

    @Test
    void theBranchesHangOffTheRootDirectly() {
        for (Class<? extends WalSinkException> branch : BRANCHES) {
            assertThat(branch.getSuperclass()).as(branch.getName()).isEqualTo(WalSinkException.class);
        }
    }

    /** Callers catch the root and the branches; the classes below them may change. */
    @Test
    void onlyTheRootAndTheBranchesArePublicApi() {
        classes()
                .that()
                .areAssignableTo(Throwable.class)
                .and()
                .areAnnotatedWith(io.walsink.annotation.PublicEvolving.class)
                .should()
                .haveFullyQualifiedName(WalSinkException.class.getName())
                .orShould()
                .haveFullyQualifiedName(InputException.class.getName())
                .orShould()
                .haveFullyQualifiedName(StorageException.class.getName())
                .orShould()
                .haveFullyQualifiedName(FormatException.class.getName())
                .orShould()
                .haveFullyQualifiedName(ShardException.class.getName())
                .because("the exception classes below the branches are @Internal; see docs/operations.md")
                .check(LayeringTest.MAIN);
    }

    @Test
    void everyExceptionIsInOneBranch() {
        classes()
                .that()
                .areAssignableTo(Throwable.class)
                .and()
                .doNotHaveFullyQualifiedName(WalSinkException.class.getName())
                .should()
                .beAssignableTo(assignableTo(InputException.class)
                        .or(assignableTo(StorageException.class))
                        .or(assignableTo(FormatException.class))
                        .or(assignableTo(ShardException.class))
                        .as("InputException, StorageException, FormatException or ShardException"))
                .because("callers catch walsink's failures by branch; see docs/operations.md")
                .check(LayeringTest.MAIN);
    }

    @Test
    void theOperationsGuideListsEveryException() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "operations.md"), StandardCharsets.UTF_8);
        int start = doc.indexOf("## Errors: which to catch");
        assertThat(start)
                .as("section 'Errors: which to catch' in docs/operations.md")
                .isNotNegative();
        int end = doc.indexOf("\n## ", start);
        String section = doc.substring(start, end < 0 ? doc.length() : end);
        List<String> exceptions = LayeringTest.MAIN.stream()
                .filter(c -> c.isAssignableTo(Throwable.class))
                .map(c -> c.getSimpleName())
                .toList();
        assertThat(exceptions).as("exception classes").isNotEmpty();
        assertThat(exceptions).allSatisfy(name -> assertThat(section)
                .as("docs/operations.md names " + name)
                .contains(name));
    }
}
