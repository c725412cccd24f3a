package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** K1 (determinism) and K3 (injectivity) over generated specs. */
class RunSpecProperties {

  record Fields(String pipeline, long start, long length, int schema, Map<String, byte[]> inputs) {
    RunSpec spec() {
      RunSpec s = RunSpec.of(pipeline, new Window(start, length), schema);
      for (Map.Entry<String, byte[]> e : inputs.entrySet()) {
        s = s.withInput(e.getKey(), e.getValue());
      }
      return s;
    }

    RunSpec specInReverseOrder() {
      RunSpec s = RunSpec.of(pipeline, new Window(start, length), schema);
      List<String> names = new java.util.ArrayList<>(inputs.keySet());
      java.util.Collections.reverse(names);
      for (String n : names) {
        s = s.withInput(n, inputs.get(n));
      }
      return s;
    }

    boolean sameAs(Fields o) {
      if (!pipeline.equals(o.pipeline) || start != o.start || length != o.length || schema != o.schema
          || !inputs.keySet().equals(o.inputs.keySet())) {
        return false;
      }
      return inputs.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), o.inputs.get(e.getKey())));
    }
  }

  @Provide
  Arbitrary<Fields> fields() {
    // Small alphabets on purpose: collisions between near-identical specs are what we look for.
    Arbitrary<String> names = Arbitraries.strings().withChars("ab.-_1").ofMinLength(0).ofMaxLength(3).map(s -> "a" + s);
    Arbitrary<byte[]> values = Arbitraries.bytes().between((byte) 0, (byte) 2).array(byte[].class).ofMaxSize(3);
    Arbitrary<Map<String, byte[]>> inputs = Arbitraries.maps(names, values).ofMaxSize(3).map(TreeMap::new);
    return Combinators.combine(
            names,
            Arbitraries.longs().between(0, 3),
            Arbitraries.longs().between(1, 3),
            Arbitraries.integers().between(0, 2),
            inputs)
        .as(Fields::new);
  }

  @Property(tries = 500, seed = "20261202")
  void outputKey_equalSpecs_equalKeys(@ForAll("fields") Fields f) {
    assertEquals(f.spec().outputKey(), f.spec().outputKey());
    assertEquals(f.spec().outputKey(), f.specInReverseOrder().outputKey(), "K1: input order must not matter");
    assertEquals(f.spec(), f.specInReverseOrder());
  }

  @Property(tries = 2000, seed = "20261202")
  void outputKey_differentSpecs_differentKeys(@ForAll("fields") Fields a, @ForAll("fields") Fields b) {
    if (a.sameAs(b)) {
      assertEquals(a.spec().outputKey(), b.spec().outputKey());
    } else {
      assertNotEquals(a.spec().outputKey(), b.spec().outputKey(), "K3: " + a + " vs " + b);
      assertNotEquals(a.spec(), b.spec());
    }
  }

  @Property(tries = 2000, seed = "20261202")
  void canonicalBytes_differentSpecs_differentBytes(@ForAll("fields") Fields a, @ForAll("fields") Fields b) {
    // Injectivity of the encoding itself, independent of SHA-256.
    assertEquals(a.sameAs(b), Arrays.equals(a.spec().canonicalBytes(), b.spec().canonicalBytes()));
  }

  @Property(tries = 500, seed = "20261202")
  void canonicalBytes_anyFields_matchTheDocumentedLayout(
      @ForAll("fields") Fields f,
      @ForAll long start,
      @ForAll long length,
      @ForAll int schema) {
    // The encoder writes bytes by hand for speed; this is the class comment's layout written the plain
    // way, over the whole range of every number (sign bits and high bytes included).
    Fields wide = new Fields(f.pipeline(), Math.abs(start % (Long.MAX_VALUE / 2)),
        1 + Math.abs(length % (1L << 40)), Math.abs(schema % Integer.MAX_VALUE), f.inputs());
    java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream out = new java.io.DataOutputStream(expected);
    try {
      out.write(wide.pipeline().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      out.writeLong(wide.start());
      out.writeLong(wide.length());
      out.writeInt(wide.schema());
      if (!wide.inputs().isEmpty()) {
        out.write("\0idem-inputs-v1\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.writeInt(wide.inputs().size());
        for (Map.Entry<String, byte[]> e : new TreeMap<>(wide.inputs()).entrySet()) {
          byte[] name = e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
          out.writeInt(name.length);
          out.write(name);
          out.writeLong(e.getValue().length);
          out.write(e.getValue());
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertArrayEquals(expected.toByteArray(), wide.spec().canonicalBytes());
  }
}
