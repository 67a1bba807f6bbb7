package io.gpufleet.preflight.wiring;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.OutcomeSinks;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.s3.S3BlobStoreAdapter;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.preflight.BoundedPrices;
import io.gpufleet.preflight.DedupeStorePort;
import io.gpufleet.preflight.NodePoolPort;
import io.gpufleet.preflight.PlanLoaderPort;
import io.gpufleet.preflight.PreflightFunction;
import io.gpufleet.preflight.PreflightReporting;
import io.gpufleet.preflight.PreflightService;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.QuotaAlarmService;
import io.gpufleet.preflight.ReportStorePort;
import io.gpufleet.preflight.aws.CloudWatchUsageAdapter;
import io.gpufleet.preflight.aws.Ec2CapacityAdapter;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.aws.S3ReportAdapter;
import io.gpufleet.preflight.aws.ServiceQuotasAdapter;
import io.gpufleet.preflight.k8s.NodePoolAdapter;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Builds the preflight function from the environment, once per Lambda init; and the shared wiring
 * of the service over a set of regional clients (CLI, simulate, benchmark, tests).
 */
public final class PreflightWiring {
  public static final String EVENT_SOURCE = "gpufleet.capacity-preflight";

  /** The function\'s name: its settings schema is schemas/settings/<FUNCTION>.schema.json. */
  public static final String FUNCTION = "capacity-preflight";

  private PreflightWiring() {}

  /**
   * @param primeClients builds, without calling AWS, the clients a first event in the home region
   *     uses (SnapStart priming)
   */
  public record Wired(PreflightFunction function, MetricsPort metrics, Runnable primeClients) {}

  /**
   * A value made on first use and then kept, thread-safe (the functions' clients that an event may
   * never need).
   */
  public static <T> Supplier<T> once(Supplier<T> make) {
    return new Supplier<>() {
      private volatile T value;

      @Override
      public T get() {
        T v = value;
        if (v == null) {
          synchronized (this) {
            v = value;
            if (v == null) {
              v = make.get();
              value = v;
            }
          }
        }
        return v;
      }
    };
  }

  /** The service over the real AWS clients (an endpoint override serves every region). */
  public static PreflightService service(
      RegionalClients clients,
      String homeRegion,
      OnDemandPrices prices,
      PreflightSettings settings,
      Clock clock) {
    return new PreflightService(
        new Ec2CapacityAdapter(clients, homeRegion),
        new ServiceQuotasAdapter(clients),
        new CloudWatchUsageAdapter(clients, clock),
        prices,
        settings,
        clock);
  }

  /** The function over a service and its sinks. */
  public static PreflightFunction function(
      PreflightService service,
      DedupeStorePort dedupe,
      ReportStorePort store,
      PlanLoaderPort loader,
      NodePoolPort pools,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier,
      String clusterRegion) {
    return new PreflightFunction(
        service,
        new QuotaAlarmService(service, dedupe, notifier),
        store,
        PreflightReporting.reporter(metrics, publisher, notifier),
        dedupe,
        loader,
        pools,
        metrics,
        clusterRegion);
  }

  /**
   * The On-Demand price chain of fleet-core, waited on at most {@code PREFLIGHT_PRICE_WAIT}
   * (default 5s) per price: see {@link BoundedPrices}.
   */
  public static OnDemandPrices pricing(
      AwsClients aws, Settings env, Optional<BlobStorePort> cache, Clock clock) {
    Duration wait =
        env.duration("PREFLIGHT_PRICE_WAIT", Duration.ofSeconds(5), Duration.ofMinutes(5));
    return new BoundedPrices(OnDemandPricing.create(aws, env, cache, clock), wait);
  }

  public static Wired fromEnvironment() {
    Settings env =
        SettingsDocument.apply(
            Settings.fromEnvironment(), FUNCTION, AwsClients.lazyFromEnvironment());
    PreflightSettings settings = PreflightSettings.from(env);
    Clock clock = Clock.systemUTC();
    AwsClients home = AwsClients.fromEnvironment();
    var regional = new RegionalClients(home.credentials(), Optional.empty());
    String homeRegion = home.region().id();
    Runnable homeClients =
        () -> {
          regional.ec2(homeRegion);
          regional.serviceQuotas(homeRegion);
          regional.cloudWatch(homeRegion);
        };
    // built in INIT (no call, no credentials resolved) on a thread of their own, beside the rest of
    // the wiring and the warm-up: every event reaches EC2, Service Quotas and CloudWatch in some
    // region. The protocol clients are small; what their first call loads (credentials chain, HTTP
    // client, SigV4 signer, EC2 answer reader) is loaded here by a request signed with dummy keys
    // and thrown away, which would otherwise be the first event's work
    Supplier<Boolean> homeClientsBuilt =
        InitWarmup.beside(
            "home-clients",
            () -> {
              homeClients.run();
              Ec2Query.prime(); // no I/O, no state, no real credentials
              return true;
            });
    // built on first use: without a results bucket only an s3:// plan URI reads S3
    Supplier<S3Rest> s3 = once(() -> S3Rest.from(home));
    // On-Demand prices: Pricing API → memory → S3 cache (in the results bucket) → static table
    OnDemandPrices prices =
        pricing(
            home,
            env,
            settings
                .resultsBucket()
                .map(b -> new S3BlobStoreAdapter(s3.get(), b, settings.resultsPrefix())),
            clock);
    PreflightService service = service(regional, home.region().id(), prices, settings, clock);

    DedupeStorePort dedupe = DedupeStorePort.inMemory(10_000);
    ReportStorePort store = ReportStorePort.NONE;
    PlanLoaderPort loader = PlanLoaderPort.NONE;
    if (settings.resultsBucket().isPresent()) {
      var objects =
          new S3ReportAdapter(s3, settings.resultsBucket().get(), settings.resultsPrefix());
      dedupe = DedupeStorePort.layered(dedupe, objects);
      store = objects;
      loader = objects;
    } else {
      loader = new S3ReportAdapter(s3, "unused", "");
    }
    NodePoolPort pools = NodePoolPort.NONE;
    Optional<String> cluster = env.optional("CLUSTER_NAME");
    if (env.optional("KUBE_API_URL").isPresent() || cluster.isPresent()) {
      KubernetesClient kube =
          KubeClients.fromEnvironment(env, cluster.orElse(""), () -> home, clock);
      pools = new NodePoolAdapter(kube);
    }
    var sinks = OutcomeSinks.fromEnvironment(env, () -> home, EVENT_SOURCE);
    MetricsPort metrics = new PowertoolsMetricsAdapter();
    homeClientsBuilt.get();
    return new Wired(
        function(
            service,
            dedupe,
            store,
            loader,
            pools,
            metrics,
            sinks.publisher(),
            sinks.notifier(),
            home.region().id()),
        metrics,
        () -> {
          homeClients.run();
          s3.get();
        });
  }
}
