/**
 * Retention: deciding which generations of a pipeline may be deleted, in a way that is safe to run
 * while replicas publish and advance. The only code in idem that removes published objects (P2).
 */
package dev.idem.core.retention;
