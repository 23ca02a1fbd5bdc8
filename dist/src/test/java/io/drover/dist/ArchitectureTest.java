package io.drover.dist;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.drover.model.agentapi.SaltArgs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The module rules of docs/architecture.md, checked on the compiled classes. */
class ArchitectureTest {
    static JavaClasses drover;

    @BeforeAll
    static void load() {
        // tests, also those of other modules on the class path as test jars, are not held to these rules
        drover = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.drover");
    }

    /**
     * Jinjava (and the EL classes it ships) is allowed because rendering is pure logic that belongs in core
     * (docs/architecture.md); so are MACs (javax.crypto) and byte buffers (java.nio, not its files or channels), which
     * seal cluster messages, the JDK's X.500 names because a certificate's subject is one (core.tls), and re2j because
     * trigger regexes are matched with RE2's semantics in linear time (core.match); nothing else is.
     */
    @Test
    void coreIsPureLogicThatDependsOnTheModelOnly() {
        classes().that().resideInAPackage("io.drover.core..").should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.drover.core..", "io.drover.model..", "java.lang..", "java.util..",
                        "java.math..", "java.time..", "java.text..", "java.io..", "java.nio.charset..",
                        "java.security..", "javax.crypto..", "java.nio", "javax.security.auth.x500..", "com.hubspot.jinjava..",
                        "jinjava.javax.el..", "java.beans..", "com.google.re2j..")
                .check(drover);
    }

    /** Streams are allowed in core (the tar codec parses them); files, sockets and processes are not. */
    @Test
    void coreTouchesNoFilesNetworkOrProcesses() {
        noClasses().that().resideInAPackage("io.drover.core..").should().dependOnClassesThat()
                .haveNameMatching("java\\.io\\.(File|RandomAccessFile).*|java\\.nio\\.file\\..*|java\\.net\\..*|java\\.lang\\.Process.*")
                .check(drover);
    }

    @Test
    void nothingButTheDistributionDependsOnTheServer() {
        noClasses().that().resideInAnyPackage("io.drover.model..", "io.drover.core..", "io.drover.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.drover.server..")
                .check(drover);
    }

    @Test
    void theModelDependsOnNoOtherDroverModule() {
        noClasses().that().resideInAPackage("io.drover.model..").should().dependOnClassesThat()
                .resideInAnyPackage("io.drover.core..", "io.drover.cli..", "io.drover.dist..")
                .check(drover);
    }

    /** Javalin, Jetty and servlet types live in the HTTP layer: the http package and the *Routes classes. */
    @Test
    void httpTypesStayInTheHttpLayer() {
        noClasses().that().resideOutsideOfPackage("io.drover.server.http..").and().haveSimpleNameNotEndingWith("Routes")
                .should().dependOnClassesThat().resideInAnyPackage("io.javalin..", "org.eclipse.jetty..", "jakarta.servlet..")
                .check(drover);
    }

    /** SQL is written in stores only (the class that owns a table); services hold transactions and call them. */
    @Test
    void sqlStaysInStores() {
        noClasses().that().resideInAPackage("io.drover.server..").and().resideOutsideOfPackage("io.drover.server.store..")
                .and().haveSimpleNameNotEndingWith("Store")
                .should().callMethodWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                        JavaClass.Predicates.assignableTo(org.jdbi.v3.core.Handle.class))))
                .because("SQL belongs to the store of its table")
                .check(drover);
    }

    /** One suffix for persistence classes: "Store" (the glossary in docs/architecture.md). */
    @Test
    void persistenceClassesAreCalledStores() {
        noClasses().that().resideInAPackage("io.drover..").should().haveSimpleNameEndingWith("Repository")
                .because("a class that owns a table's SQL is a *Store").check(drover);
    }

    /** Services refuse with DomainException; HTTP status codes (ApiException) belong to the HTTP layer. */
    @Test
    void httpErrorsStayInTheHttpLayer() {
        noClasses().that().resideOutsideOfPackage("io.drover.server.http..").and().haveSimpleNameNotEndingWith("Routes")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.drover.server.http.ApiException")
                .check(drover);
    }

    /**
     * Agent calls are typed: the server reaches agents through AgentCalls with model.agentapi records; only the job
     * service (which also runs what an operator types in `drover run`), the CLI and the quickstart (an operator's
     * `test.ping`) deal in function names and raw argument lists, and Salt's argument encoding is written once
     * ({@code SaltArgs}), used by the job service and by the agent's SaltStack plan scripts (which call agent functions
     * by name).
     */
    @Test
    void agentCallsAreTypedOutsideTheCodecAndTheJobService() {
        noClasses().that().resideOutsideOfPackages("io.drover.server.jobs..", "io.drover.model..", "io.drover.cli..",
                        "io.drover.dist..")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.drover.model.jobs.JobRequest")
                .check(drover);
        noClasses().that().resideOutsideOfPackages("io.drover.model.agentapi..", "io.drover.server.jobs..")
                .and().doNotHaveFullyQualifiedName("io.drover.agent.plans.SaltStackExecutor")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.drover.model.agentapi.SaltArgs")
                .check(drover);
    }

    /**
     * Salt's keyword-argument mark is spelt out only by the codec ({@code model/…/agentapi}) and the transport: every
     * other main source builds argument lists with {@code SaltArgs}. A plain scan of each module's {@code src/main}.
     */
    @Test
    void theKwargMarkIsWrittenOnlyByTheCodec() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Path codec = root.resolve("model/src/main/java/io/drover/model/agentapi");
        assertThat(codec.resolve("SaltArgs.java")).as("the repository root, from dist").exists();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path main : modules.filter(m -> !m.endsWith("transport")).map(m -> m.resolve("src/main"))
                    .filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path file : files.filter(Files::isRegularFile).filter(f -> !f.startsWith(codec)).sorted().toList()) {
                        if (new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(SaltArgs.KWARG_MARK)) {
                            offenders.add(root.relativize(file).toString());
                        }
                    }
                }
            }
        }
        assertThat(offenders).withFailMessage("Salt's %s mark is written by hand in %s; build the argument list with "
                + "io.drover.model.agentapi.SaltArgs instead", SaltArgs.KWARG_MARK, offenders).isEmpty();
    }

    /**
     * The agent link (what agents send) reaches other features only through interfaces of its own ({@code JobReports},
     * {@code PlanLogs}, {@code KeyDecisions}, {@code AgentPresence}, {@code FileRequests}) and the event outbox.
     */
    @Test
    void theAgentLinkReachesOtherFeaturesThroughItsOwnInterfacesAndEvents() {
        classes().that().resideInAPackage("io.drover.server.agentlink..").should().onlyDependOnClassesThat(
                        JavaClass.Predicates.resideOutsideOfPackage("io.drover.server..").or(JavaClass.Predicates.resideInAnyPackage(
                                "io.drover.server.agentlink..", "io.drover.server.events..", "io.drover.server.store..")))
                .check(drover);
    }

    /**
     * The server's features (its packages) depend on each other without a cycle: the agent link hands returns, job
     * reports and plan logs to the job lifecycle and to execution plans through interfaces of its own, so neither
     * depends back on it. A feature's {@code *Routes} class belongs to the HTTP layer ({@link
     * #httpTypesStayInTheHttpLayer}) that sits above every feature: its use of the http package is not the feature's.
     */
    @Test
    void serverFeaturesFormNoCycle() {
        slices().matching("io.drover.server.(*)..").should().beFreeOfCycles()
                .ignoreDependency(JavaClass.Predicates.simpleNameEndingWith("Routes"),
                        JavaClass.Predicates.resideInAPackage("io.drover.server.http.."))
                .check(drover);
    }
}
