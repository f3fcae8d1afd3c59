package dev.nightshift.spec.hash;

import java.util.function.Supplier;

/**
 * Receives the inputs of a hash in a fixed order; lets hashing avoid building lists on the hot
 * path. The display form is only computed by sinks that explain, never by the digest.
 */
@FunctionalInterface
public interface HashInputSink {

    void accept(String path, String canonical, Supplier<String> display);

    default void accept(String path, String canonical) {
        accept(path, canonical, () -> canonical);
    }
}
