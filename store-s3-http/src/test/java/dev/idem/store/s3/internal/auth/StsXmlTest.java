package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading STS replies, including refusal of DTDs and entities. */
class StsXmlTest {

  static final String SUCCESS = """
      <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
        <AssumeRoleWithWebIdentityResult>
        <SubjectFromWebIdentityToken>system:serviceaccount:ns:sa</SubjectFromWebIdentityToken>
        <AssumedRoleUser>
          <Arn>arn:aws:sts::123456789012:assumed-role/r/s</Arn>
          <AssumedRoleId>AROAEXAMPLE:s</AssumedRoleId>
        </AssumedRoleUser>
        <Credentials>
          <AccessKeyId>ASIAEXAMPLE</AccessKeyId>
          <SecretAccessKey>se/cr+et</SecretAccessKey>
          <SessionToken>to&amp;ken</SessionToken>
          <Expiration>2026-01-01T01:00:00Z</Expiration>
        </Credentials>
        </AssumeRoleWithWebIdentityResult>
      </AssumeRoleWithWebIdentityResponse>
      """;

  @Nested
  class Fields {

    @Test
    void fields_successReply_readsCredentialsElement() {
      Map<String, String> fields = StsXml.fields(SUCCESS, "Credentials");

      assertEquals(Map.of("AccessKeyId", "ASIAEXAMPLE", "SecretAccessKey", "se/cr+et",
          "SessionToken", "to&ken", "Expiration", "2026-01-01T01:00:00Z"), fields);
    }

    @Test
    void fields_errorReply_readsErrorElement() {
      Map<String, String> fields = StsXml.fields("""
          <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
            <Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>
            <Message>No OpenIDConnect provider found</Message></Error>
            <RequestId>r</RequestId>
          </ErrorResponse>""", "Error");

      assertEquals("InvalidIdentityToken", fields.get("Code"));
      assertEquals("No OpenIDConnect provider found", fields.get("Message"));
    }

    @Test
    void fields_missingElement_isEmpty() {
      assertTrue(StsXml.fields("<a><b>c</b></a>", "Credentials").isEmpty());
    }

    @Test
    void fields_malformedXml_isRejectedWithoutQuotingIt() {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> StsXml.fields("<Credentials><SecretAccessKey>SECRETVALUE</Credentials>",
              "Credentials"));

      assertFalse(e.getMessage().contains("SECRETVALUE"));
    }

    @Test
    void fields_externalEntity_isNeverRead(@TempDir Path dir) throws Exception {
      Path secretFile = dir.resolve("secret.txt");
      Files.writeString(secretFile, "LOCAL-FILE-CONTENT");
      String xxe = "<?xml version=\"1.0\"?>\n"
          + "<!DOCTYPE r [<!ENTITY x SYSTEM \"" + secretFile.toUri() + "\">]>\n"
          + "<r><Credentials><AccessKeyId>&x;</AccessKeyId></Credentials></r>";

      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> StsXml.fields(xxe, "Credentials"));

      assertFalse(e.getMessage().contains("LOCAL-FILE-CONTENT"));
    }

    @Test
    void fields_internalEntity_isRefusedToo() {
      assertThrows(IllegalArgumentException.class, () -> StsXml.fields(
          "<!DOCTYPE r [<!ENTITY x \"inline\">]>"
              + "<r><Credentials><AccessKeyId>&x;</AccessKeyId></Credentials></r>",
          "Credentials"));
    }
  }
}
