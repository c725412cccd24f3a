/**
 * Test servers for the S3 store, exported in this module's test-jar for the CLI and benchmark modules:
 * {@link dev.idem.store.s3.testing.S3ProxyServer} (a real S3 server, S3Proxy, in a child JVM on
 * 127.0.0.1), {@link dev.idem.store.s3.testing.FakeS3Server} (a scripted server that misbehaves on cue)
 * {@link dev.idem.store.s3.testing.ChaosProxy} (a TCP proxy that cuts connections by byte count),
 * {@link dev.idem.store.s3.testing.QuirkProxy} (a gateway in front of S3Proxy that answers some requests
 * as other S3 implementations do) and {@link dev.idem.store.s3.testing.HeaderStrippingProxy} (one that
 * drops conditional headers).
 *
 * <p>Everything binds to the loopback interface only, stops itself (shutdown hooks, daemon threads) and
 * injects faults by count, never by timing, so tests stay deterministic.
 */
package dev.idem.store.s3.testing;
