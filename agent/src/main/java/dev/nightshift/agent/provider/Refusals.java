package dev.nightshift.agent.provider;

import java.util.Optional;

/** A provider that may refuse to act on a pool (a missing or misconfigured backing object). */
public interface Refusals {

    /** Why the provider will not act on this pool, named with what to change, or empty. Nothing is done to a refused pool. */
    Optional<String> refusal(String pool);
}
