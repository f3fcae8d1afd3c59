package dev.nightshift.spec.model;

/** How a pool's outdated nodes are brought to the desired spec. */
public enum UpdateStrategy {
    AutoRollingUpdate,
    AutoInPlaceUpdate,
    ManualInPlaceUpdate,
    Replace;

    /** In-place strategies keep the machine and change it; the others replace it. */
    public boolean inPlace() {
        return this == AutoInPlaceUpdate || this == ManualInPlaceUpdate;
    }
}
