package dev.nightshift.agent.provider;

import java.time.Instant;
import java.util.Optional;

import dev.nightshift.spec.hash.StampedHash;

/**
 * A machine as its provider reports it.
 *
 * @param running the provider reports it up (for bastions, which never register as nodes)
 */
public record Machine(String name, String pool, Instant createdAt, StampedHash rollHash, StampedHash kubeletHash,
                      Optional<String> surgeFor, boolean running) {
}
