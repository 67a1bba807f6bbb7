package io.gpufleet.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

class AwsEmulatorExtensionTest {
  private static final BooleanSupplier NO_DOCKER = () -> false;
  private static final BooleanSupplier DOCKER_MUST_NOT_BE_USED =
      () -> {
        throw new AssertionError("Docker must not be probed");
      };

  private static Path executable(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/bin/sh\nexit 1\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return file;
  }

  @Nested
  class LocatingMoto {

    @Test
    void shouldFindTheNearestVenvWalkingUpFromTheWorkingDirectory(@TempDir Path root)
        throws IOException {
      // Given a repository with a .venv and a module two levels down
      var binary = executable(root.resolve(".venv/bin/moto_server"));
      var module = Files.createDirectories(root.resolve("sim/fleet-sim"));

      // When
      var search = MotoServer.locate(null, module);

      // Then
      assertThat(search.binary()).hasValue(binary);
    }

    @Test
    void shouldPreferMotoServerFromTheEnvironment(@TempDir Path root) throws IOException {
      // Given
      executable(root.resolve(".venv/bin/moto_server"));
      var elsewhere = executable(root.resolve("opt/moto/bin/moto_server"));

      // When
      var search = MotoServer.locate(elsewhere.toString(), root);

      // Then
      assertThat(search.binary()).hasValue(elsewhere);
    }

    @Test
    void shouldNotFallBackToTheVenvWhenTheEnvironmentNamesAMissingBinary(@TempDir Path root)
        throws IOException {
      // Given
      executable(root.resolve(".venv/bin/moto_server"));

      // When
      var search = MotoServer.locate(root.resolve("nope/moto_server").toString(), root);

      // Then
      assertThat(search.binary()).isEmpty();
      assertThat(search.looked())
          .containsExactly("$MOTO_SERVER=" + root.resolve("nope/moto_server"));
    }
  }

  @Nested
  class Choosing {

    @Test
    void shouldFailWithTheReadmeHintWhenNeitherDockerNorMotoIsThere(@TempDir Path empty) {
      assertThatThrownBy(() -> AwsEmulatorExtension.start(Set.of(), null, null, empty, NO_DOCKER))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no Docker engine is available for LocalStack")
          .hasMessageContaining("moto_server was not found")
          .hasMessageContaining(empty.resolve(".venv/bin/moto_server").toString())
          .hasMessageContaining("Run the test command from the README")
          .hasMessageContaining("export MOTO_SERVER=");
    }

    @Test
    void shouldRequireMotoForEksWithoutProbingDocker(@TempDir Path empty) {
      assertThatThrownBy(
              () ->
                  AwsEmulatorExtension.start(
                      Set.of("eks"), null, null, empty, DOCKER_MUST_NOT_BE_USED))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("[eks] needs moto (LocalStack has it only in its Pro image)")
          .hasMessageContaining("Run the test command from the README");
    }

    @Test
    void shouldRejectAnUnknownChoice(@TempDir Path empty) {
      assertThatThrownBy(
              () ->
                  AwsEmulatorExtension.start(
                      Set.of(), "docker", null, empty, DOCKER_MUST_NOT_BE_USED))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "GPUFLEET_AWS_EMULATOR='docker' is not one of auto, moto, localstack,"
                  + " localstack-host");
    }

    @Test
    void shouldRefuseLocalStackWithoutDocker(@TempDir Path empty) {
      assertThatThrownBy(
              () -> AwsEmulatorExtension.start(Set.of(), "localstack", null, empty, NO_DOCKER))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "GPUFLEET_AWS_EMULATOR=localstack but no Docker engine is available to"
                  + " Testcontainers.");
    }

    @Test
    void shouldReportAMotoServerThatExitsAtStartWithItsExitCode(@TempDir Path root)
        throws IOException {
      // Given a "moto_server" that dies immediately
      var broken = executable(root.resolve("moto_server"));

      // When / Then
      assertThatThrownBy(
              () ->
                  AwsEmulatorExtension.start(
                      Set.of(), "moto", broken.toString(), root, DOCKER_MUST_NOT_BE_USED))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(
              "moto_server exited with code 1 before answering on http://127.0.0.1:");
    }
  }

  @Nested
  @ExtendWith(AwsEmulatorExtension.class)
  class Lifecycle {

    @Test
    void shouldInjectARunningEmulatorWithRegionAndStaticCredentials(AwsEmulator aws)
        throws Exception {
      assertThat(aws.region().id()).isEqualTo("us-east-1");
      assertThat(aws.credentials().resolveCredentials().accessKeyId()).isEqualTo("test");
      assertThat(aws.credentials().resolveCredentials().secretAccessKey()).isEqualTo("test");
      assertThat(aws.endpoint().getHost()).isIn("127.0.0.1", "localhost");
      var response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(aws.endpoint().resolve("/")).build(),
                  HttpResponse.BodyHandlers.discarding());
      assertThat(response.statusCode()).isLessThan(500);
    }

    @Test
    void shouldStopTheServerWhenClosed() throws Exception {
      // Given a server of our own (the injected one belongs to the class)
      var moto = MotoServer.locate(System.getenv(MotoServer.ENV), Path.of("")).binary();
      var aws = MotoServer.start(moto.orElseThrow());
      var probe = HttpRequest.newBuilder(aws.endpoint().resolve("/moto-api/")).build();
      var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      assertThat(http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode())
          .isEqualTo(200);

      // When
      aws.close();
      aws.close();

      // Then
      assertThatThrownBy(() -> http.send(probe, HttpResponse.BodyHandlers.discarding()))
          .isInstanceOf(ConnectException.class);
    }
  }
}
