/**
 * The XML reader of the S3 store: {@link dev.idem.store.s3.internal.xml.XmlPullParser}, a small streaming pull
 * parser for the XML that S3, STS and S3-compatible servers send, shared by the S3 client ({@code
 * dev.idem.store.s3.internal.client}) and the credential sources ({@code dev.idem.store.s3.internal.auth}).
 *
 * <p>It exists so that the store needs no {@code java.xml} module (the self-contained runtime leaves it
 * out) and so that a listing page is read from the response body as it arrives, without a tree. What it
 * does not support (DTDs, entities beyond the five predefined ones, processing instructions, encodings
 * other than UTF-8) is an {@link dev.idem.store.s3.internal.xml.XmlSyntaxException} naming the position, never
 * data read differently from a conforming XML parser.
 */
package dev.idem.store.s3.internal.xml;
