package dev.idem.store.s3.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs a test class once per chosen S3 implementation ({@link S3Implementation#selected()}), with the
 * implementation as the class's one parameter (a {@code @Parameter S3Implementation} field or a
 * constructor argument; the class starts nothing itself but asks {@link S3Implementation#shared()}),
 * and with {@link ServerGaps} disabling the cases a server cannot pass, each with its reason.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ParameterizedClass(name = "on {0}")
@MethodSource("dev.idem.store.s3.testing.S3Implementation#selected")
@ExtendWith(ServerGaps.class)
public @interface OnEachS3Server {}
