package io.gpufleet.core.catalog;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The AWS commercial regions a plan may name (validated before any call). */
public final class Regions {
  public static final List<String> COMMERCIAL =
      List.of(
          "us-east-1",
          "us-east-2",
          "us-west-1",
          "us-west-2",
          "af-south-1",
          "ap-east-1",
          "ap-east-2",
          "ap-south-1",
          "ap-south-2",
          "ap-southeast-1",
          "ap-southeast-2",
          "ap-southeast-3",
          "ap-southeast-4",
          "ap-southeast-5",
          "ap-southeast-7",
          "ap-northeast-1",
          "ap-northeast-2",
          "ap-northeast-3",
          "ca-central-1",
          "ca-west-1",
          "eu-central-1",
          "eu-central-2",
          "eu-west-1",
          "eu-west-2",
          "eu-west-3",
          "eu-south-1",
          "eu-south-2",
          "eu-north-1",
          "il-central-1",
          "me-south-1",
          "me-central-1",
          "mx-central-1",
          "sa-east-1");

  /** Regions enabled in every account by default (the opt-in ones are left out). */
  public static final List<String> DEFAULT_ENABLED =
      List.of(
          "us-east-1",
          "us-east-2",
          "us-west-1",
          "us-west-2",
          "ap-south-1",
          "ap-southeast-1",
          "ap-southeast-2",
          "ap-northeast-1",
          "ap-northeast-2",
          "ap-northeast-3",
          "ca-central-1",
          "eu-central-1",
          "eu-west-1",
          "eu-west-2",
          "eu-west-3",
          "eu-north-1",
          "sa-east-1");

  private static final Set<String> KNOWN = Set.copyOf(COMMERCIAL);

  private Regions() {}

  public static boolean known(String region) {
    return KNOWN.contains(region);
  }

  public static Set<String> sorted() {
    return new TreeSet<>(COMMERCIAL);
  }
}
