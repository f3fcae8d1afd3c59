package dev.nightshift.spec.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Kubernetes release {@code MAJOR.MINOR.PATCH}. */
public record KubernetesVersion(int major, int minor, int patch) implements Comparable<KubernetesVersion> {

    private static final Pattern FORM = Pattern.compile("(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)");

    public static Optional<KubernetesVersion> parse(String text) {
        Matcher m = FORM.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new KubernetesVersion(
                    Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
        } catch (NumberFormatException tooLarge) {
            return Optional.empty();
        }
    }

    public static KubernetesVersion of(String text) {
        return parse(text).orElseThrow(() -> new IllegalArgumentException("not a Kubernetes version: " + text));
    }

    /** {@code MAJOR.MINOR}: the part of the version that decides a roll. */
    public String minorVersion() {
        return major + "." + minor;
    }

    public boolean sameMinor(KubernetesVersion other) {
        return major == other.major && minor == other.minor;
    }

    /** How many minor releases {@code this} is above {@code other}; only meaningful within a major. */
    public int minorsAbove(KubernetesVersion other) {
        return minor - other.minor;
    }

    @Override
    public int compareTo(KubernetesVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
