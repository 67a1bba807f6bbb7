package io.gpufleet.sim;

import io.gpufleet.core.time.TimeSource;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The simulated instant a request was sent at. Under {@link io.gpufleet.core.time.VirtualTime}
 * every thread has its own time, and a simulated server's threads do not know the sender's, so the
 * simulator's clients stamp each request, in the sending thread, with the sender's time; the
 * simulated servers act at that instant (a request without the stamp, e.g. from a function in
 * another process, is taken to be sent at the server's {@link TimeSource#now()}).
 */
public final class RequestTime {
  public static final String HEADER = "X-Gpufleet-Sim-Time";

  private RequestTime() {}

  /** For a fabric8 client: {@code KubeClients.forUrl(..., RequestTime.stamping(time))}. */
  public static java.util.function.Consumer<io.fabric8.kubernetes.client.http.HttpClient.Builder>
      stamping(TimeSource time) {
    return http ->
        http.addOrReplaceInterceptor(
            "gpufleet-sim-time",
            new io.fabric8.kubernetes.client.http.Interceptor() {
              @Override
              public void before(
                  io.fabric8.kubernetes.client.http.BasicBuilder builder,
                  io.fabric8.kubernetes.client.http.HttpRequest request,
                  RequestTags tags) {
                builder.setHeader(HEADER, time.now().toString());
              }
            });
  }

  /** For an AWS SDK client: {@code overrideConfiguration(c -> c.addExecutionInterceptor(...))}. */
  public static ExecutionInterceptor stampingSdk(TimeSource time) {
    return new ExecutionInterceptor() {
      @Override
      public SdkHttpRequest modifyHttpRequest(
          Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return context.httpRequest().toBuilder().putHeader(HEADER, time.now().toString()).build();
      }
    };
  }

  /** The stamped instant of a request, or the server's time when it carries none. */
  public static Instant of(String header, TimeSource time) {
    return header == null ? time.now() : Instant.parse(header);
  }

  /** As {@link #of(String, TimeSource)} for headers keyed in lower case. */
  public static Instant of(Map<String, String> lowerCaseHeaders, TimeSource time) {
    return of(lowerCaseHeaders.get(HEADER.toLowerCase(java.util.Locale.ROOT)), time);
  }
}
