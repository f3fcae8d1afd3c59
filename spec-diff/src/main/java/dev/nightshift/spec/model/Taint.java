package dev.nightshift.spec.model;

/** A node taint; {@code value} is empty when the spec gives none. */
public record Taint(String key, String value, TaintEffect effect) {

    @Override
    public String toString() {
        return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
    }
}
