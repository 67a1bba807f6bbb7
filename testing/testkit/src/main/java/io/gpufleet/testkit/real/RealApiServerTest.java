package io.gpufleet.testkit.real;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class of the real API server tier: tagged {@code real-api} (so it can be selected or
 * excluded with {@code -Dgroups}/{@code -DexcludedGroups}) and extended with {@link
 * RealApiServerExtension}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RealApiServerTest.TAG)
@ExtendWith(RealApiServerExtension.class)
public @interface RealApiServerTest {
  String TAG = "real-api";
}
