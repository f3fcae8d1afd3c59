package dev.nightshift.spec.hash;

/** Receives the inputs of a hash in a fixed order; lets hashing avoid building lists on the hot path. */
@FunctionalInterface
public interface HashInputSink {

    void accept(String path, String canonical, String display);

    default void accept(String path, String canonical) {
        accept(path, canonical, canonical);
    }
}
