package io.gpufleet.sim.real;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificates of a throwaway loopback cluster, made in process (BouncyCastle is already on the
 * classpath through the fabric8 mock server): a CA, the API server's serving certificate for
 * 127.0.0.1/localhost, an admin client certificate in {@code system:masters}, and the service
 * account signing key pair. RSA 2048 keys, valid for a day, written as PEM files into {@code dir}.
 */
record Pki(
    Path dir,
    Path caCert,
    Path servingCert,
    Path servingKey,
    Path adminCert,
    Path adminKey,
    Path serviceAccountKey,
    Path serviceAccountPublicKey) {

  static final Duration VALIDITY = Duration.ofDays(1);

  static Pki create(Path dir) {
    try {
      Files.createDirectories(dir);
      var random = new SecureRandom();
      KeyPair ca = rsa(random);
      Instant now = Instant.now();
      X500Name caName = name("gpufleet-test-ca", null);
      X509Certificate caCert =
          sign(
              caName,
              ca,
              caName,
              ca.getPublic(),
              now,
              random,
              builder -> {
                builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
                builder.addExtension(
                    Extension.keyUsage,
                    true,
                    new KeyUsage(
                        KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
              });
      KeyPair serving = rsa(random);
      X509Certificate servingCert =
          sign(
              caName,
              ca,
              name("kube-apiserver", null),
              serving.getPublic(),
              now,
              random,
              builder -> {
                leaf(builder, KeyPurposeId.id_kp_serverAuth);
                builder.addExtension(
                    Extension.subjectAlternativeName,
                    false,
                    new GeneralNames(
                        new GeneralName[] {
                          new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                          new GeneralName(GeneralName.dNSName, "localhost"),
                          new GeneralName(GeneralName.dNSName, "kubernetes.default.svc"),
                        }));
              });
      KeyPair admin = rsa(random);
      X509Certificate adminCert =
          sign(
              caName,
              ca,
              name("gpufleet-admin", "system:masters"),
              admin.getPublic(),
              now,
              random,
              builder -> leaf(builder, KeyPurposeId.id_kp_clientAuth));
      KeyPair serviceAccount = rsa(random);

      var pki =
          new Pki(
              dir,
              dir.resolve("ca.crt"),
              dir.resolve("apiserver.crt"),
              dir.resolve("apiserver.key"),
              dir.resolve("admin.crt"),
              dir.resolve("admin.key"),
              dir.resolve("sa.key"),
              dir.resolve("sa.pub"));
      write(pki.caCert, pem(caCert));
      write(pki.servingCert, pem(servingCert));
      write(pki.servingKey, pem(serving.getPrivate()));
      write(pki.adminCert, pem(adminCert));
      write(pki.adminKey, pem(admin.getPrivate()));
      write(pki.serviceAccountKey, pem(serviceAccount.getPrivate()));
      write(pki.serviceAccountPublicKey, pem(serviceAccount.getPublic()));
      return pki;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the test cluster's certificates to " + dir, e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the test cluster's certificates", e);
    }
  }

  /** A file's content base64-encoded, as kubeconfig *-data fields and fabric8 want it. */
  static String base64(Path file) {
    try {
      return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private interface Extensions {
    void add(X509v3CertificateBuilder builder) throws IOException;
  }

  private static void leaf(X509v3CertificateBuilder builder, KeyPurposeId purpose)
      throws IOException {
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    builder.addExtension(
        Extension.keyUsage,
        true,
        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
    builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
  }

  private static X509Certificate sign(
      X500Name issuer,
      KeyPair issuerKeys,
      X500Name subject,
      java.security.PublicKey subjectKey,
      Instant now,
      SecureRandom random,
      Extensions extensions)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    var builder =
        new JcaX509v3CertificateBuilder(
            issuer,
            new BigInteger(64, random).add(BigInteger.ONE),
            Date.from(now.minus(Duration.ofMinutes(5))),
            Date.from(now.plus(VALIDITY)),
            subject,
            subjectKey);
    var utils = new JcaX509ExtensionUtils();
    builder.addExtension(
        Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(subjectKey));
    if (!issuer.equals(subject)) {
      builder.addExtension(
          Extension.authorityKeyIdentifier,
          false,
          utils.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
    }
    extensions.add(builder);
    var signer = new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate());
    return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
  }

  private static X500Name name(String commonName, String organisation) {
    var builder = new X500NameBuilder(BCStyle.INSTANCE);
    if (organisation != null) {
      builder.addRDN(BCStyle.O, organisation);
    }
    return builder.addRDN(BCStyle.CN, commonName).build();
  }

  private static KeyPair rsa(SecureRandom random) throws GeneralSecurityException {
    var generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048, random);
    return generator.generateKeyPair();
  }

  private static String pem(Object object) throws IOException {
    var out = new StringWriter();
    try (var writer = new JcaPEMWriter(out)) {
      if (object instanceof PrivateKey key) {
        // PKCS#8 ("PRIVATE KEY"), which Go, OpenSSL and fabric8 all read
        writer.writeObject(
            new org.bouncycastle.util.io.pem.PemObject("PRIVATE KEY", key.getEncoded()));
      } else {
        writer.writeObject(object);
      }
    }
    return out.toString();
  }

  private static void write(Path file, String content) throws IOException {
    Files.writeString(file, content, StandardCharsets.US_ASCII);
    try {
      Files.setPosixFilePermissions(
          file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException notPosix) {
      // permissions are a courtesy here: the directory is private and deleted afterwards
    }
  }

  List<Path> files() {
    return List.of(
        caCert,
        servingCert,
        servingKey,
        adminCert,
        adminKey,
        serviceAccountKey,
        serviceAccountPublicKey);
  }
}
