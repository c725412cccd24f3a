package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The one-line guarantee of {@link CredentialsException}. */
class CredentialsExceptionTest {

  @Test
  void constructor_multiLineMessage_becomesOneLine() {
    CredentialsException e = new CredentialsException("first\r\nsecond\nthird\n");

    assertEquals("first second third", e.getMessage());
  }

  @Test
  void constructor_withCause_keepsCause() {
    IOException cause = new IOException("connection refused");

    CredentialsException e = new CredentialsException("container: cannot reach", cause);

    assertSame(cause, e.getCause());
    assertEquals("container: cannot reach", e.getMessage());
  }
}
