package io.gpufleet.testkit.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The package rule every function keeps (issue 11 item 4): its domain package (and model, policy,
 * render subpackages) owns the ports and uses none of its {@code aws}, {@code k8s} or {@code
 * wiring} packages; the adapters do not use the wiring; and no two subpackages use each other. So
 * wiring → adapters → domain, never back: no package cycle.
 */
public final class PortsAndAdapters {
  private PortsAndAdapters() {}

  /**
   * Checks the main classes of {@code root} (e.g. {@code io.gpufleet.drain}); throws on a breach.
   */
  public static void check(String root) {
    check(
        root,
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages(root));
  }

  /** As above, over the given classes (a breach is an {@link AssertionError} naming each use). */
  public static void check(String root, JavaClasses classes) {
    String aws = root + ".aws..";
    String k8s = root + ".k8s..";
    String wiring = root + ".wiring..";
    noClasses()
        .that()
        .resideInAPackage(root + "..")
        .and()
        .resideOutsideOfPackages(aws, k8s, wiring)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(aws, k8s, wiring)
        .because("the domain owns its ports; adapters and wiring depend on it, never the reverse")
        .allowEmptyShould(true)
        .check(classes);
    noClasses()
        .that()
        .resideInAnyPackage(aws, k8s)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(wiring)
        .because("the wiring builds the adapters, so an adapter using it is a cycle")
        .allowEmptyShould(true)
        .check(classes);
    slices().matching(root + ".(*)..").should().beFreeOfCycles().check(classes);
  }
}
