package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The sizes a refused publish names, as people read them: bytes below a KiB, one decimal above. */
class InsufficientSpaceExceptionTest {

  @Test
  void bytes_belowAKibibyte_inBytes() {
    assertEquals("0 bytes", InsufficientSpaceException.bytes(0));
    assertEquals("1023 bytes", InsufficientSpaceException.bytes(1023));
  }

  @Test
  void bytes_fromAKibibyte_inTheLargestUnitBelowTheValue() {
    assertEquals("1.0 KiB", InsufficientSpaceException.bytes(1024));
    assertEquals("1.5 KiB", InsufficientSpaceException.bytes(1536));
    assertEquals("1.0 MiB", InsufficientSpaceException.bytes(1024L * 1024));
    assertEquals("3.2 GiB", InsufficientSpaceException.bytes(3_435_973_837L));
    assertEquals("1.0 TiB", InsufficientSpaceException.bytes(1L << 40));
  }

  @Test
  void bytes_beyondTheLargestUnit_stillInTebibytes() {
    assertEquals("1024.0 TiB", InsufficientSpaceException.bytes(1L << 50));
  }
}
