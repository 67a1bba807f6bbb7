package io.gpufleet.testkit.real;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Marks a test class that must run after every other class of the test run (the least-privilege
 * check reads the audit log the other classes wrote). Takes effect with {@link Orderer} as the
 * default class orderer ({@code junit.jupiter.testclass.order.default} in {@code
 * junit-platform.properties}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface RunsLast {
  /** Keeps the discovered order, except that {@link RunsLast} classes go to the end. */
  final class Orderer implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
      context
          .getClassDescriptors()
          .sort(Comparator.comparing((ClassDescriptor d) -> d.isAnnotated(RunsLast.class)));
    }
  }
}
