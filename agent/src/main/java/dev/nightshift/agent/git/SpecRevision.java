package dev.nightshift.agent.git;

import java.time.Instant;

import dev.nightshift.spec.model.SpecSet;

/** A commit whose specs loaded and validated: what the agent acts on. */
public record SpecRevision(String commit, SpecSet specs, Instant loadedAt) {
}
