/**
 * Test servers for the S3 store, exported in this module's test-jar for the CLI, fuzz and benchmark
 * modules: {@link dev.idem.store.s3.testing.S3TestServer}, a real S3 server in a child process on
 * 127.0.0.1 (S3Proxy, moto or S3Mock, {@link dev.idem.store.s3.testing.S3Implementation}), with {@link
 * dev.idem.store.s3.testing.OnEachS3Server} to run a suite on each and {@link
 * dev.idem.store.s3.testing.ServerGaps} naming what a server cannot pass; {@link
 * dev.idem.store.s3.testing.FakeS3Server} (a scripted server that misbehaves on cue), {@link
 * dev.idem.store.s3.testing.ChaosProxy} (a TCP proxy that cuts connections by byte count), {@link
 * dev.idem.store.s3.testing.QuirkProxy} (a gateway in front of a real server that answers some requests
 * as other S3 implementations do) and {@link dev.idem.store.s3.testing.HeaderStrippingProxy} (one that
 * drops conditional headers).
 *
 * <p>Everything binds to the loopback interface (S3Mock's unused second connector aside, see {@link
 * dev.idem.store.s3.testing.S3MockServer}), stops itself (shutdown hooks, a watch of the parent in
 * every server process, daemon threads) and injects faults by count, never by timing, so tests stay
 * deterministic.
 */
package dev.idem.store.s3.testing;
