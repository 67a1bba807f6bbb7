package io.gpufleet.core.lambda;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * An HTTPS server on the loopback interface that exists only while a function primes its hot path
 * before a SnapStart snapshot: the function's own clients (the same TLS stack, HTTP client and JSON
 * paths as against the real endpoints) talk to it, so no request leaves the process. Its key is
 * made when it starts and thrown away with it (an EC P-256 key and a self-signed certificate for
 * {@code localhost} and {@code 127.0.0.1}, valid for a fixed period: no wall clock is read); {@link
 * #close()} stops it before the checkpoint.
 *
 * <p>It speaks HTTP/1.1 (the JDK's server has no HTTP/2): a client that offers {@code h2} by ALPN
 * falls back, so the HTTP/2 framing classes are loaded apart ({@code JdkHttp2Classes} in the
 * Kubernetes adapters).
 */
public final class LoopbackHttps implements AutoCloseable {
  /** One request: method, path with query, body. */
  public record Request(String method, String path, String query, byte[] body) {
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** One answer: status and a JSON body (empty: none). */
  public record Response(int status, String json) {}

  /** What the server answers; called concurrently. */
  @FunctionalInterface
  public interface Handler {
    Response handle(Request request);
  }

  private final HttpsServer server;
  private final ExecutorService workers;
  private final String caData;

  private LoopbackHttps(HttpsServer server, ExecutorService workers, String caData) {
    this.server = server;
    this.workers = workers;
    this.caData = caData;
  }

  /** Starts serving {@code handler} on a free loopback port. */
  public static LoopbackHttps start(Handler handler) {
    try {
      KeyPair keys = generateKeys();
      byte[] der = SelfSigned.certificate(keys);
      Certificate cert =
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der));
      char[] pass = "loopback".toCharArray();
      var store = KeyStore.getInstance("PKCS12");
      store.load(null, pass);
      store.setKeyEntry("loopback", keys.getPrivate(), pass, new Certificate[] {cert});
      var kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, pass);
      var tls = SSLContext.getInstance("TLS");
      tls.init(kmf.getKeyManagers(), null, null);
      var server =
          HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
      server.setHttpsConfigurator(new HttpsConfigurator(tls));
      var workers = Executors.newVirtualThreadPerTaskExecutor();
      server.setExecutor(workers);
      server.createContext("/", exchange -> serve(handler, exchange));
      server.start();
      String pem =
          "-----BEGIN CERTIFICATE-----\n"
              + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
              + "\n-----END CERTIFICATE-----\n";
      return new LoopbackHttps(
          server,
          workers,
          Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot start the loopback HTTPS server for priming", e);
    }
  }

  private static KeyPair generateKeys() throws GeneralSecurityException {
    var gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(new ECGenParameterSpec("secp256r1"));
    return gen.generateKeyPair();
  }

  private static void serve(Handler handler, HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      var uri = exchange.getRequestURI();
      Response r;
      try {
        r =
            handler.handle(
                new Request(exchange.getRequestMethod(), uri.getPath(), uri.getRawQuery(), body));
      } catch (RuntimeException e) {
        r = new Response(500, "{\"message\":\"" + e.getClass().getSimpleName() + "\"}");
      }
      byte[] json = r.json() == null ? new byte[0] : r.json().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(r.status(), json.length == 0 ? -1 : json.length);
      if (json.length > 0) {
        exchange.getResponseBody().write(json);
      }
    }
  }

  /** {@code https://localhost:PORT} (no trailing slash). */
  public String url() {
    return "https://localhost:" + server.getAddress().getPort();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The certificate as a cluster CA is given to a client: base64 of the PEM. */
  public String caData() {
    return caData;
  }

  /** Stops the server at once, its open exchanges and worker threads with it. */
  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }

  /** A minimal DER encoder for the one self-signed certificate this server needs. */
  static final class SelfSigned {
    private static final byte[] ECDSA_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
    private static final byte[] COMMON_NAME = oid(2, 5, 4, 3);
    private static final byte[] SUBJECT_ALT_NAME = oid(2, 5, 29, 17);

    private SelfSigned() {}

    static byte[] certificate(KeyPair keys) throws GeneralSecurityException {
      byte[] algorithm = seq(ECDSA_SHA256);
      byte[] name =
          seq(
              tlv(
                  0x31,
                  seq(COMMON_NAME, tlv(0x0c, "localhost".getBytes(StandardCharsets.US_ASCII)))));
      byte[] validity =
          seq(
              tlv(0x17, "000101000000Z".getBytes(StandardCharsets.US_ASCII)),
              tlv(0x18, "20991231235959Z".getBytes(StandardCharsets.US_ASCII)));
      byte[] san =
          seq(
              tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)),
              tlv(0x87, new byte[] {127, 0, 0, 1}));
      byte[] extensions = tlv(0xa3, seq(seq(SUBJECT_ALT_NAME, tlv(0x04, san))));
      byte[] tbs =
          seq(
              tlv(0xa0, tlv(0x02, new byte[] {2})),
              tlv(0x02, new byte[] {1}),
              algorithm,
              name,
              validity,
              name,
              keys.getPublic().getEncoded(),
              extensions);
      var signer = Signature.getInstance("SHA256withECDSA");
      signer.initSign(keys.getPrivate());
      signer.update(tbs);
      byte[] signature = signer.sign();
      byte[] bits = new byte[signature.length + 1];
      System.arraycopy(signature, 0, bits, 1, signature.length);
      return seq(tbs, algorithm, tlv(0x03, bits));
    }

    static byte[] seq(byte[]... parts) {
      var out = new ByteArrayOutputStream();
      for (byte[] p : parts) {
        out.writeBytes(p);
      }
      return tlv(0x30, out.toByteArray());
    }

    static byte[] tlv(int tag, byte[] content) {
      var out = new ByteArrayOutputStream();
      out.write(tag);
      int n = content.length;
      if (n < 0x80) {
        out.write(n);
      } else if (n < 0x100) {
        out.write(0x81);
        out.write(n);
      } else {
        out.write(0x82);
        out.write(n >> 8);
        out.write(n & 0xff);
      }
      out.writeBytes(content);
      return out.toByteArray();
    }

    static byte[] oid(int... arcs) {
      var out = new ByteArrayOutputStream();
      out.write(40 * arcs[0] + arcs[1]);
      for (int i = 2; i < arcs.length; i++) {
        int v = arcs[i];
        int shift = 28;
        while (shift > 0 && (v >>> shift) == 0) {
          shift -= 7;
        }
        for (; shift > 0; shift -= 7) {
          out.write(0x80 | ((v >>> shift) & 0x7f));
        }
        out.write(v & 0x7f);
      }
      return tlv(0x06, out.toByteArray());
    }
  }
}
