package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * Which multipart parts carry a signed SHA-256 ({@link PartUploads#signsParts}): over TLS the transport
 * authenticates the body and a part goes {@code UNSIGNED-PAYLOAD} with its CRC32C; over plain http a
 * CRC32C could be forged by whoever rewrites the part, so the part's SHA-256 is signed.
 */
class PartSigningTest {
  @Test
  void plainHttpParts_signed_httpsParts_not() {
    assertTrue(PartUploads.signsParts(URI.create("http://minio.storage.svc:9000")));
    assertTrue(PartUploads.signsParts(URI.create("HTTP://127.0.0.1:9000")));
    assertFalse(PartUploads.signsParts(URI.create("https://s3.eu-west-1.amazonaws.com")));
    assertFalse(PartUploads.signsParts(URI.create("HTTPS://minio.example:9000")));
  }
}
