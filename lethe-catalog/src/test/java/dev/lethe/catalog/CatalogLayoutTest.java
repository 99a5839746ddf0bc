package dev.lethe.catalog;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The catalog's layout (docs/design/0210-catalog-drop-and-jobs-layout.md); each ArchUnit {@code check} fails the test with the offending classes, as an assertion would. */
class CatalogLayoutTest {
  private static final JavaClasses CATALOG = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.lethe.catalog");

  @Test
  void thePackagesOfTheCatalogHaveNoCycle() {
    slices().matching("dev.lethe.catalog.(*)..").should().beFreeOfCycles().check(CATALOG);
  }

  @Test
  void theCatalogKnowsNothingOfHttp() {
    noClasses().should().dependOnClassesThat()
        .resideInAnyPackage("io.javalin..", "org.eclipse.jetty..", "jakarta.servlet..", "javax.servlet..")
        .check(CATALOG);
  }
}
