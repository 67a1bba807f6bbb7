package io.gpufleet.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The simulated API server's server-side apply, over plain HTTP requests shaped as a client sends
 * them. (fabric8's CRUD mock alone answers application/apply-patch+yaml with 415, shown last.)
 */
class ServerSideApplyModelTest {
  SimCluster cluster;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final String DEPLOY = "apis/apps/v1/namespaces/ml/deployments/chat";

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    cluster.objects().create(SimObjects.deployment("ml", "chat", 4, Map.of("app", "chat"), null));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  HttpResponse<String> apply(String path, String query, String body) throws Exception {
    var request =
        HttpRequest.newBuilder(URI.create(cluster.url() + path + query))
            .method("PATCH", HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/apply-patch+yaml")
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  static String body(String extra) {
    return "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"chat\","
        + "\"namespace\":\"ml\""
        + extra
        + "}";
  }

  @Test
  void shouldRequireAFieldManager() throws Exception {
    var r = apply(DEPLOY, "", body("},\"spec\":{\"replicas\":0}"));

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("must provide a fieldManager");
  }

  @Test
  void shouldTreatUidAndResourceVersionAsPreconditions() throws Exception {
    var r = apply(DEPLOY, "?fieldManager=t", body(",\"uid\":\"other\"},\"spec\":{\"replicas\":0}"));
    assertThat(r.statusCode()).isEqualTo(409);
    assertThat(r.body()).contains("Precondition failed: UID in precondition: other");

    var stale =
        apply(
            DEPLOY,
            "?fieldManager=t",
            body(",\"resourceVersion\":\"1\"},\"spec\":{\"replicas\":0}"));
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(cluster.objects().require("Deployment", "ml", "chat").at("/spec/replicas").asInt())
        .isEqualTo(4);
  }

  @Test
  void shouldMergeAndRemoveOnlyWhatTheSameManagerGaveUpUnchanged() throws Exception {
    // gpufleet sets replicas and two annotations
    var first =
        apply(
            DEPLOY,
            "?fieldManager=gpufleet&force=true",
            body(",\"annotations\":{\"a/x\":\"1\",\"b\":\"2\"}},\"spec\":{\"replicas\":0}"));
    assertThat(first.statusCode()).isEqualTo(200);
    JsonNode after = Json.MAPPER.readTree(first.body());
    assertThat(after.at("/spec/replicas").asInt()).isZero();
    assertThat(after.at("/spec/template/spec/containers/0/name").asText()).isEqualTo("main");

    // somebody else changes replicas and annotation b
    cluster.objects().scale("Deployment", "ml", "chat", 3);
    cluster
        .objects()
        .patch("Deployment", "ml", "chat", "{\"metadata\":{\"annotations\":{\"b\":\"theirs\"}}}");

    // gpufleet applies again without any of them: its unchanged field goes, the changed ones stay
    var second = apply(DEPLOY, "?fieldManager=gpufleet&force=true", body("}"));
    JsonNode end = Json.MAPPER.readTree(second.body());
    assertThat(end.at("/metadata/annotations").has("a/x")).isFalse();
    assertThat(end.at("/metadata/annotations/b").asText()).isEqualTo("theirs");
    assertThat(end.at("/spec/replicas").asInt()).isEqualTo(3);
  }

  @Test
  void shouldShowThatTheCrudMockAloneRejectsServerSideApply() throws Exception {
    // ConfigMaps are served by fabric8's CRUD mock, not by the simulator's object store
    var create =
        HttpRequest.newBuilder(URI.create(cluster.url() + "api/v1/namespaces/ml/configmaps"))
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ml\"}}"))
            .header("Content-Type", "application/json")
            .build();
    assertThat(http.send(create, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);

    var r =
        apply(
            "api/v1/namespaces/ml/configmaps/c",
            "?fieldManager=t",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"}}");

    assertThat(r.statusCode()).isEqualTo(415);
  }
}
