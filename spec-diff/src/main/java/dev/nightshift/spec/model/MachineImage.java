package dev.nightshift.spec.model;

import java.util.List;
import java.util.Optional;

/** A catalog entry: the versions of one image and whether each can be reached by an in-place update. */
public record MachineImage(String name, List<Version> versions) {

    public MachineImage {
        versions = List.copyOf(versions);
    }

    /**
     * @param providerImage what the machine provider calls this version (an AMI id, a node image):
     *                      effect none, since the version already names the image
     */
    public record Version(ImageVersion version, boolean inPlaceSupported, Optional<ImageVersion> minVersionForUpdate,
                          Optional<String> providerImage) {

        public Version(ImageVersion version, boolean inPlaceSupported, Optional<ImageVersion> minVersionForUpdate) {
            this(version, inPlaceSupported, minVersionForUpdate, Optional.empty());
        }
    }

    public Optional<Version> find(ImageVersion version) {
        return versions.stream().filter(v -> v.version().compareTo(version) == 0).findFirst();
    }
}
