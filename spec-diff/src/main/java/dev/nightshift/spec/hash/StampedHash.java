package dev.nightshift.spec.hash;

/** A hash value together with the version of the function that computed it, as stamped on a node. */
public record StampedHash(int version, String value) {

    @Override
    public String toString() {
        return "v" + version + ":" + value;
    }
}
