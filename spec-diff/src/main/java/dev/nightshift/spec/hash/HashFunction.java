package dev.nightshift.spec.hash;

import dev.nightshift.spec.model.ResolvedPool;

/**
 * One version of a hash. A version's inputs never change once released: a release that changes
 * them adds a new version and keeps this one, so nodes stamped under it can be re-stamped
 * rather than rolled (see {@link HashScheme#match}).
 */
public interface HashFunction {

    int version();

    /** Emits every input, always the same inputs in the same order: the position identifies an input in the digest. */
    void inputs(ResolvedPool pool, HashInputSink sink);
}
