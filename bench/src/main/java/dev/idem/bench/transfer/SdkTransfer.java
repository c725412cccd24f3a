package dev.idem.bench.transfer;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.multipart.MultipartConfiguration;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

/**
 * The AWS SDK for Java v2's answer to a large upload or download: {@link S3TransferManager} over the
 * SDK's async {@link S3AsyncClient}, whose multipart mode splits an upload into parts and sends them in
 * parallel. {@code bench/large-transfers.sh} times it as one process beside {@code idem publish}, {@code
 * idem get} and {@code aws s3 cp}, on the same server and file.
 *
 * <p>Configuration: parts of 8 MiB from 8 MiB up
 * (what {@code aws s3 cp} and idem use), the Netty client's default of 50 connections, and the JVM's
 * default trust store, which the script points at the server's certificate over https. The CRT-based
 * client, which the SDK's guide also recommends for throughput, is not a peer here: it cannot read
 * S3Proxy's CreateMultipartUpload reply ("Upload Id not found"). Checksums are sent only where an
 * operation requires one, as the SDK advises for servers other than AWS: S3Proxy answers 501 to the
 * CRC32 full-object checksum the SDK sends with a multipart upload by default, and to the object size
 * it declares on completion, which is dropped ({@link WithoutObjectSizeHeader}). A download is one
 * GetObject streamed to the file: the multipart client reads a multipart object part by part, by part
 * number, which S3Proxy refuses (501, "Reading one part of a multipart object is not supported").
 *
 * <p>Usage: {@code SdkTransfer upload|download ENDPOINT BUCKET KEY FILE}; credentials from {@code
 * AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY}. Exits 0 when the transfer completed.
 */
public final class SdkTransfer {
  private static final long PART_SIZE = 8L * 1024 * 1024;

  private SdkTransfer() {}

  /**
   * Drops {@code x-amz-mp-object-size}, the total size the SDK declares on CompleteMultipartUpload,
   * which S3Proxy refuses (501 NotImplemented); AWS treats the header as an optional check.
   */
  private static final class WithoutObjectSizeHeader implements ExecutionInterceptor {
    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
      return context.httpRequest().toBuilder().removeHeader("x-amz-mp-object-size").build();
    }
  }

  public static void main(String[] args) {
    if (args.length != 5 || !(args[0].equals("upload") || args[0].equals("download"))) {
      System.err.println("usage: SdkTransfer upload|download ENDPOINT BUCKET KEY FILE");
      System.exit(2);
    }
    String bucket = args[2];
    String key = args[3];
    Path file = Path.of(args[4]);
    boolean upload = args[0].equals("upload");
    try (S3AsyncClient s3 = S3AsyncClient.builder()
            .endpointOverride(URI.create(args[1]))
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .credentialsProvider(EnvironmentVariableCredentialsProvider.create())
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .overrideConfiguration(o -> o.addExecutionInterceptor(new WithoutObjectSizeHeader()))
            .httpClientBuilder(NettyNioAsyncHttpClient.builder().connectionAcquisitionTimeout(Duration.ofMinutes(5)))
            .multipartEnabled(upload)
            .multipartConfiguration(MultipartConfiguration.builder()
                .thresholdInBytes(PART_SIZE).minimumPartSizeInBytes(PART_SIZE).build())
            .build();
        S3TransferManager transfers = S3TransferManager.builder().s3Client(s3).build()) {
      if (upload) {
        transfers.uploadFile(u -> u.putObjectRequest(p -> p.bucket(bucket).key(key)).source(file))
            .completionFuture().join();
      } else {
        transfers.downloadFile(d -> d.getObjectRequest(g -> g.bucket(bucket).key(key)).destination(file))
            .completionFuture().join();
      }
    }
  }
}
