package io.gpufleet.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/**
 * HTTPS for {@code bench cold}'s AWS side, as every AWS endpoint speaks it: one RSA 2048 key and a
 * certificate for {@code localhost} (and, behind {@link AwsHosts}, for AWS's host names; the JDK's
 * keytool makes both), served by the AWS stubs and moto, and a trust store for the function's JVM
 * that is the JDK's own {@code cacerts} plus that certificate, stored as the JDK stores {@code
 * cacerts} (no integrity password, certificates not encrypted), so the function loads a trust store
 * of the same size and kind as in Lambda. Without it the first event's AWS calls would skip the TLS
 * handshake a Lambda cold start pays for.
 */
final class BenchTls implements AutoCloseable {
  private static final String PASS = "benchpass";

  private final Path dir;
  private final SSLContext server;
  private final TrustManager[] trustingTheStub;

  private BenchTls(Path dir, SSLContext server, TrustManager[] trustingTheStub) {
    this.dir = dir;
    this.server = server;
    this.trustingTheStub = trustingTheStub;
  }

  static BenchTls create() {
    return create(Path.of(System.getProperty("java.home")));
  }

  /**
   * The certificate, and a trust store for the function that runs on {@code functionJavaHome}: that
   * JDK's own {@code cacerts} plus the certificate.
   */
  static BenchTls create(Path functionJavaHome) {
    return create(functionJavaHome, null);
  }

  /**
   * The same, the certificate also valid for AWS's host names and {@code hosts}' addresses (when
   * not null), as the stubs behind {@link AwsHosts} serve it.
   */
  static BenchTls create(Path functionJavaHome, AwsHosts hosts) {
    var san = new StringBuilder("san=dns:localhost,ip:127.0.0.1");
    if (hosts != null) {
      hosts.addresses().forEach(a -> san.append(",ip:").append(a.getHostAddress()));
      AwsHosts.certificateNames().forEach(n -> san.append(",dns:").append(n));
    }
    Path dir = null;
    try {
      dir = Files.createTempDirectory("gpufleet-bench-tls");
      Path store = dir.resolve("server.p12");
      keytool(
          List.of(
              "-genkeypair",
              "-alias",
              "server",
              "-keyalg",
              "RSA",
              "-keysize",
              "2048",
              "-dname",
              "CN=localhost",
              "-ext",
              san.toString(),
              "-validity",
              "2",
              "-keystore",
              store.toString(),
              "-storepass",
              PASS));
      keytool(
          List.of(
              "-exportcert",
              "-rfc",
              "-alias",
              "server",
              "-keystore",
              store.toString(),
              "-storepass",
              PASS,
              "-file",
              dir.resolve("cert.pem").toString()));
      Path cacerts = functionJavaHome.resolve("lib").resolve("security").resolve("cacerts");
      Path trust = dir.resolve("truststore.p12");
      keytool(
          List.of(
              "-importkeystore",
              "-srckeystore",
              cacerts.toString(),
              "-srcstorepass",
              "changeit",
              "-destkeystore",
              trust.toString(),
              "-deststoretype",
              "PKCS12",
              "-deststorepass",
              "changeit"),
          true);
      keytool(
          List.of(
              "-importcert",
              "-alias",
              "gpufleet-bench",
              "-file",
              dir.resolve("cert.pem").toString(),
              "-keystore",
              trust.toString(),
              "-storepass",
              "changeit"),
          true);
      var keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keys.load(in, PASS.toCharArray());
      }
      var key = (PrivateKey) keys.getKey("server", PASS.toCharArray());
      Files.writeString(
          dir.resolve("key.pem"),
          "-----BEGIN PRIVATE KEY-----\n"
              + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                  .encodeToString(key.getEncoded())
              + "\n-----END PRIVATE KEY-----\n");
      var kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, PASS.toCharArray());
      var server = SSLContext.getInstance("TLS");
      server.init(kmf.getKeyManagers(), null, null);
      var only = KeyStore.getInstance("PKCS12");
      only.load(null, null);
      only.setCertificateEntry("server", keys.getCertificate("server"));
      var tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(only);
      return new BenchTls(dir, server, tmf.getTrustManagers());
    } catch (IOException | GeneralSecurityException e) {
      if (dir != null) {
        delete(dir);
      }
      throw new IllegalStateException("bench cold: cannot make the TLS certificate", e);
    }
  }

  /** What the AWS stubs serve HTTPS with. */
  SSLContext serverContext() {
    return server;
  }

  /** The certificate (PEM), for moto_server's {@code --ssl-cert}. */
  Path certificatePem() {
    return dir.resolve("cert.pem");
  }

  /** The private key (PKCS#8 PEM), for moto_server's {@code --ssl-key}. */
  Path privateKeyPem() {
    return dir.resolve("key.pem");
  }

  /** The function JVM's options: the JDK's trust store plus the stubs' certificate. */
  List<String> functionJvmOptions() {
    return List.of("-Djavax.net.ssl.trustStore=" + dir.resolve("truststore.p12"));
  }

  /** A file of this run's own (removed with the rest at {@link #close()}). */
  Path file(String name) {
    return dir.resolve(name);
  }

  /** An HTTP client for the bench's own calls to the stubs and moto (trusting only them). */
  SdkHttpClient benchHttpClient() {
    return UrlConnectionHttpClient.builder()
        .tlsTrustManagersProvider(() -> trustingTheStub)
        .build();
  }

  /** The same trust for the bench's own JDK HTTP client (moto's readiness probe). */
  SSLContext benchClientContext() {
    try {
      var c = SSLContext.getInstance("TLS");
      c.init(null, trustingTheStub, null);
      return c;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    delete(dir);
  }

  private static void delete(Path dir) {
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void keytool(List<String> args) throws IOException {
    keytool(args, false);
  }

  /**
   * Runs keytool; {@code asCacerts}: store as the JDK's {@code cacerts} is stored (PKCS#12 without
   * a MAC and with its certificates in the clear), so loading it costs what loading cacerts does.
   */
  private static void keytool(List<String> args, boolean asCacerts) throws IOException {
    var cmd = new ArrayList<String>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    if (asCacerts) {
      cmd.add("-J-Dkeystore.pkcs12.certProtectionAlgorithm=NONE");
      cmd.add("-J-Dkeystore.pkcs12.macAlgorithm=NONE");
    }
    cmd.addAll(args);
    cmd.add("-noprompt");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("keytool " + args.get(0) + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
