package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The AWS INI dialect: sections, comments, continuations, and errors that never quote a line. */
class IniFileTest {

  @Nested
  class Parse {

    @Test
    void parse_sectionsAndProperties_inFileOrder() {
      Map<String, Map<String, String>> ini = IniFile.parse("""
          [default]
          aws_access_key_id = AKID1
          [prod]
          aws_access_key_id=AKID2
          """);

      assertEquals(Map.of("aws_access_key_id", "AKID1"), ini.get("default"));
      assertEquals(Map.of("aws_access_key_id", "AKID2"), ini.get("prod"));
      assertEquals("[default, prod]", ini.keySet().toString());
    }

    @Test
    void parse_commentsAndWhitespace_areIgnored() {
      Map<String, Map<String, String>> ini = IniFile.parse("""
          # leading comment
          ; another comment

            [  default  ]   # comment after a section
          \tAWS_Access_Key_ID   =   AKID   ; trailing comment
          aws_secret_access_key\t=\tse#cret
          """);

      assertEquals(Map.of("aws_access_key_id", "AKID", "aws_secret_access_key", "se#cret"),
          ini.get("default"));
    }

    @Test
    void parse_indentedLinesAfterProperty_areContinuations() {
      Map<String, Map<String, String>> ini = IniFile.parse("""
          [profile x]
          s3 =
            max_concurrent_requests = 10
            addressing_style = path
          region = eu-west-1
          """);

      assertEquals(Map.of("s3", "", "region", "eu-west-1"), ini.get("profile x"));
    }

    @Test
    void parse_repeatedSectionAndKey_mergeWithLastWinning() {
      Map<String, Map<String, String>> ini = IniFile.parse("""
          [a]
          k = 1
          j = 1
          [b]
          [a]
          k = 2
          """);

      assertEquals(Map.of("k", "2", "j", "1"), ini.get("a"));
    }

    @Test
    void parse_byteOrderMarkAndCrLf_areAccepted() {
      Map<String, Map<String, String>> ini = IniFile.parse("\uFEFF[default]\r\nk = v\r\n");

      assertEquals(Map.of("k", "v"), ini.get("default"));
    }

    @Test
    void parse_result_isUnmodifiable() {
      Map<String, Map<String, String>> ini = IniFile.parse("[a]\nk = v\n");

      assertThrows(UnsupportedOperationException.class, () -> ini.get("a").put("x", "y"));
    }

    static Stream<Arguments> malformed() {
      return Stream.of(
          Arguments.of("property before any section", "k = SECRETVALUE\n", "line 1"),
          Arguments.of("unclosed section", "[default\n", "line 1"),
          Arguments.of("empty section name", "[a]\n[ ]\n", "line 2"),
          Arguments.of("line without equals", "[a]\nk = v\nSECRETVALUE\n", "line 3"),
          Arguments.of("empty key", "[a]\n = SECRETVALUE\n", "line 2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void parse_malformed_namesLineButNotContent(String name, String text, String line) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> IniFile.parse(text));

      assertEquals(line, e.getMessage().substring(0, line.length()));
      assertFalse(e.getMessage().contains("SECRETVALUE"), e.getMessage());
    }
  }
}
