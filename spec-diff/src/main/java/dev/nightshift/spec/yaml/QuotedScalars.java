package dev.nightshift.spec.yaml;

/**
 * How {@link Fields} reads a quoted scalar such as {@code "9400"} or {@code "true"} where a number or a
 * boolean is expected. Unquoted values follow the same rules either way: only decimal integers, only
 * {@code true} and {@code false}.
 */
public enum QuotedScalars {

    /** A quoted value is a string, and refused where a number or boolean is expected: the spec's rule, as Kubernetes reads its objects. */
    STAY_STRINGS,

    /**
     * A quoted value is read by its text: {@code "9400"} is the number 9400. The agent configuration
     * has always been read so (templating tools quote what they fill in); a quoted value cannot be
     * misread, which is what the unquoted rules guard against.
     */
    READ_BY_TEXT
}
