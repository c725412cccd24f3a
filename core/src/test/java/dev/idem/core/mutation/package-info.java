/**
 * Tests written from the mutants PIT found surviving ({@code ./mvnw -B -Pmutation verify -pl core}):
 * boundaries, reported counts and error messages that the behaviour suites did not pin down.
 */
package dev.idem.core.mutation;
