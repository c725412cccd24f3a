package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The strict flat-object JSON reader: what it accepts, what it refuses, and how it says so. */
class FlatJsonTest {

  @Nested
  class Parse {

    @Test
    void parse_imdsReply_readsAllFields() {
      Map<String, String> fields = FlatJson.parse("""
          {
            "Code" : "Success",
            "LastUpdated" : "2026-01-01T00:00:00Z",
            "Type" : "AWS-HMAC",
            "AccessKeyId" : "ASIAEXAMPLE",
            "SecretAccessKey" : "se/cr+et",
            "Token" : "token==",
            "Expiration" : "2026-01-01T06:00:00Z"
          }
          """);

      assertEquals("se/cr+et", fields.get("SecretAccessKey"));
      assertEquals("2026-01-01T06:00:00Z", fields.get("Expiration"));
      assertEquals(7, fields.size());
    }

    @Test
    void parse_escapes_areDecoded() {
      Map<String, String> fields = FlatJson.parse(
          "{\"a\":\"q\\\"b\\\\s\\/n\\n\\t\\u00fc\\ud83d\\ude00\",\"b\":\"\\b\\f\\r\"}");

      assertEquals("q\"b\\s/n\n\t\u00fc\uD83D\uDE00", fields.get("a"));
      assertEquals("\b\f\r", fields.get("b"));
    }

    @Test
    void parse_scalars_keptAsLiteralTextAndNullDropped() {
      Map<String, String> fields = FlatJson.parse(
          "{\"n\":-12.5e+3,\"z\":0,\"t\":true,\"f\":false,\"x\":null,\"raw\":\"\uD83D\uDE00\"}");

      assertEquals(Map.of("n", "-12.5e+3", "z", "0", "t", "true", "f", "false",
          "raw", "\uD83D\uDE00"), fields);
      assertFalse(fields.containsKey("x"));
    }

    @Test
    void parse_emptyObject_isEmpty() {
      assertTrue(FlatJson.parse(" { } ").isEmpty());
    }

    static Stream<Arguments> malformed() {
      return Stream.of(
          Arguments.of("not an object", "[\"SECRETVALUE\"]"),
          Arguments.of("nested object", "{\"a\":{\"b\":\"SECRETVALUE\"}}"),
          Arguments.of("nested array", "{\"a\":[\"SECRETVALUE\"]}"),
          Arguments.of("duplicate name", "{\"a\":\"SECRETVALUE\",\"a\":\"x\"}"),
          Arguments.of("trailing content", "{\"a\":\"SECRETVALUE\"} x"),
          Arguments.of("trailing comma", "{\"a\":\"SECRETVALUE\",}"),
          Arguments.of("missing colon", "{\"a\" \"SECRETVALUE\"}"),
          Arguments.of("unterminated string", "{\"a\":\"SECRETVALUE"),
          Arguments.of("raw control character", "{\"a\":\"SECRET\nVALUE\"}"),
          Arguments.of("bad escape", "{\"a\":\"SECRET\\xVALUE\"}"),
          Arguments.of("short unicode escape", "{\"a\":\"SECRETVALUE\\u12\"}"),
          Arguments.of("lone high surrogate escape", "{\"a\":\"SECRETVALUE\\ud83d\"}"),
          Arguments.of("lone low surrogate", "{\"a\":\"SECRETVALUE\uDE00\"}"),
          Arguments.of("leading zero", "{\"a\":01}"),
          Arguments.of("bare word", "{\"a\":SECRETVALUE}"),
          Arguments.of("single quotes", "{'a':'SECRETVALUE'}"),
          Arguments.of("empty input", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void parse_malformed_isRejectedWithOffsetOnly(String name, String text) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> FlatJson.parse(text));

      assertTrue(e.getMessage().startsWith("malformed JSON at offset "), e.getMessage());
      assertFalse(e.getMessage().contains("SECRET"), e.getMessage());
    }
  }
}
