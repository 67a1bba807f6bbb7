package io.gpufleet.core.s3;

import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Sees every {@link S3Rest} request before it is signed and sent (found with {@link
 * java.util.ServiceLoader} once per JVM). The testkit registers one that holds each request to
 * botocore's S3 model and refuses, by throwing, one that S3 would refuse or read otherwise; a
 * deployment jar registers none.
 */
public interface S3RestInspector {
  /**
   * @param operation the operation ({@code PutObject}, {@code GetObject}, {@code DeleteObject})
   * @param bucket the bucket as the caller named it
   * @param key the object key as the caller named it (not encoded)
   * @param request the request as the client hands it to the signer: method, URI (virtual-hosted or
   *     path style, key encoded) and the headers the client sets (the signer adds {@code Host},
   *     {@code X-Amz-Date}, {@code x-amz-content-sha256}, {@code Authorization})
   * @param body the request's body, or null when it has none
   */
  void inspect(String operation, String bucket, String key, SdkHttpRequest request, byte[] body);
}
