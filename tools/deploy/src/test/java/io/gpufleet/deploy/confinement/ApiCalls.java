package io.gpufleet.deploy.confinement;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Plain HTTP calls to the test cluster's API server as one caller (a bearer token, optionally
 * impersonating a user and groups), so an attack sees the status code and body exactly as a client
 * would and can name any path (subresources, {@code ?dryRun=All}).
 */
final class ApiCalls {
  /** Who sends: a bearer token, and the user and groups it impersonates (admin only). */
  record Caller(String name, String token, String impersonateUser, List<String> impersonateGroups) {
    static Caller bearer(String name, String token) {
      return new Caller(name, token, null, List.of());
    }
  }

  record Response(int code, String body) {
    boolean ok() {
      return code / 100 == 2;
    }

    JsonNode json() {
      return ApiCalls.read(body);
    }

    /** The API server's message of a refusal (Status.message), else the body. */
    String message() {
      try {
        return ApiCalls.read(body).path("message").asText(body);
      } catch (RuntimeException e) {
        return body;
      }
    }
  }

  static JsonNode read(String text) {
    try {
      return Json.MAPPER.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not JSON: " + text, e);
    }
  }

  private final String url;
  private final HttpClient http;

  ApiCalls(String url, String caDataBase64) {
    this.url = url;
    try {
      var cf = CertificateFactory.getInstance("X.509");
      var ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (var cert :
          cf.generateCertificates(
              new ByteArrayInputStream(Base64.getDecoder().decode(caDataBase64)))) {
        ks.setCertificateEntry("ca" + i++, cert);
      }
      var tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      var ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      this.http =
          HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build();
    } catch (Exception e) {
      throw new IllegalStateException("cannot trust the cluster's CA", e);
    }
  }

  Response get(Caller who, String path) {
    return send(who, "GET", path, null, null);
  }

  /** A JSON merge patch of {@code path}; {@code dryRun} adds {@code ?dryRun=All}. */
  Response mergePatch(Caller who, String path, JsonNode patch, boolean dryRun) {
    return send(
        who,
        "PATCH",
        path + (dryRun ? "?dryRun=All" : ""),
        "application/merge-patch+json",
        Json.write(patch));
  }

  Response send(Caller who, String method, String path, String contentType, String body) {
    var b =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + who.token())
            .header("Accept", "application/json");
    if (who.impersonateUser() != null) {
      b.header("Impersonate-User", who.impersonateUser());
      who.impersonateGroups().forEach(g -> b.header("Impersonate-Group", g));
    }
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", contentType)
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    try {
      var r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
