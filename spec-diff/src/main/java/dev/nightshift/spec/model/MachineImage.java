package dev.nightshift.spec.model;

import java.util.List;
import java.util.Optional;

/** A catalog entry: the versions of one image and whether each can be reached by an in-place update. */
public record MachineImage(String name, List<Version> versions) {

    public MachineImage {
        versions = List.copyOf(versions);
    }

    public record Version(ImageVersion version, boolean inPlaceSupported, Optional<ImageVersion> minVersionForUpdate) {
    }

    public Optional<Version> find(ImageVersion version) {
        return versions.stream().filter(v -> v.version().compareTo(version) == 0).findFirst();
    }
}
