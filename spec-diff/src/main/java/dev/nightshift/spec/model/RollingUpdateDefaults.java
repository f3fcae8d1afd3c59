package dev.nightshift.spec.model;

import java.util.Optional;

/** The cluster-wide {@code rollingUpdate} defaults, per field. */
public record RollingUpdateDefaults(Optional<IntOrPercent> maxSurge, Optional<IntOrPercent> maxUnavailable) {

    public static final RollingUpdateDefaults NONE = new RollingUpdateDefaults(Optional.empty(), Optional.empty());
}
