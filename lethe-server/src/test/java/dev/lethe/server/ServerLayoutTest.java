package dev.lethe.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The server's layout (docs/design/0215-one-http-edge-and-composition-root.md §4); each ArchUnit {@code check} fails the test with the offending classes, as an assertion would. */
class ServerLayoutTest {
  private static final JavaClasses SERVER = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.lethe.server");

  @Test
  void thePackagesOfTheServerHaveNoCycle() {
    slices().matching("dev.lethe.server.(*)..").should().beFreeOfCycles().check(SERVER);
  }

  @Test
  void nothingDependsOnTheCompositionRoot() {
    noClasses().that().resideInAPackage("dev.lethe.server.*..")
        .should().dependOnClassesThat().resideInAPackage("dev.lethe.server")
        .check(SERVER);
  }

  @Test
  void routesCallServicesNeverADao() {
    noClasses().that().haveSimpleNameEndingWith("Routes")
        .should().dependOnClassesThat().haveNameMatching("dev\\.lethe\\.catalog\\..*Dao")
        .check(SERVER);
  }
}
