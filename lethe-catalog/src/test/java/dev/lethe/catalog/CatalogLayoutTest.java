package dev.lethe.catalog;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
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

  /** docs/design/0210-catalog-drop-and-jobs-layout.md: a package may use only the ones to its left. */
  private static final List<String> ORDER = List.of("entity", "location", "io", "jobs", "purge", "softdelete", "iceberg", "drop");

  @Test
  void eachPackageUsesOnlyThoseBelowIt() {
    for (int i = 0; i < ORDER.size(); i++) {
      String[] above = ORDER.subList(i + 1, ORDER.size()).stream().map(p -> "dev.lethe.catalog." + p + "..")
          .toArray(String[]::new);
      if (above.length > 0) {
        noClasses().that().resideInAPackage("dev.lethe.catalog." + ORDER.get(i) + "..")
            .should().dependOnClassesThat().resideInAnyPackage(above)
            .check(CATALOG);
      }
    }
  }

  @Test
  void everyPackageHasItsPlaceInTheOrder() {
    assertThat(CATALOG.stream().map(c -> c.getPackageName())
        .filter(p -> p.startsWith("dev.lethe.catalog."))
        .map(p -> p.substring("dev.lethe.catalog.".length()).split("\\.")[0])
        .distinct())
        .allMatch(ORDER::contains);
  }

  @Test
  void theCatalogKnowsNothingOfHttp() {
    noClasses().should().dependOnClassesThat()
        .resideInAnyPackage("io.javalin..", "org.eclipse.jetty..", "jakarta.servlet..", "javax.servlet..")
        .check(CATALOG);
  }
}
