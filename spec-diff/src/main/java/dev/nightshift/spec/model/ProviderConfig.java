package dev.nightshift.spec.model;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A pool's free-form {@code providerConfig}: values are String, BigDecimal, Boolean, null, Map or
 * List. Its canonical text (keys sorted, numbers by value) is computed once, here.
 */
public final class ProviderConfig {

    public static final ProviderConfig EMPTY = new ProviderConfig(Map.of());

    private final Map<String, Object> values;
    private final String canonical;

    public ProviderConfig(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
        this.canonical = CanonicalText.of(this.values);
    }

    public Map<String, Object> values() {
        return values;
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    public String canonical() {
        return canonical;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProviderConfig p && p.canonical.equals(canonical);
    }

    @Override
    public int hashCode() {
        return canonical.hashCode();
    }

    @Override
    public String toString() {
        return canonical;
    }
}
