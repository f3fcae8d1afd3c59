package dev.nightshift.agent.git;

import java.util.Map;

/** The spec files of one commit, by path relative to the spec directory. */
public record SpecSnapshot(String commit, Map<String, byte[]> files) {

    public SpecSnapshot {
        files = Map.copyOf(files);
    }
}
