package dev.nightshift.spec.load;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.nightshift.spec.load.YamlNode.ListNode;
import dev.nightshift.spec.load.YamlNode.MapNode;
import dev.nightshift.spec.load.YamlNode.Scalar;
import dev.nightshift.spec.load.YamlNode.ScalarKind;

/**
 * Reads the fields of one YAML mapping into typed values. A wrong or missing value becomes a
 * {@link SpecError} and a placeholder, so that one pass reports every problem of a document;
 * the caller discards a document that produced errors. {@link #finish()} reports unknown fields.
 */
final class Fields {

    private final MapNode node;
    private final String path;
    private final List<SpecError> errors;
    private final SourceMap sources;
    private final Set<String> taken = new HashSet<>();
    /** Stands in for a required mapping that is missing: that one error is enough, its fields stay quiet. */
    private final boolean placeholder;

    Fields(MapNode node, String path, List<SpecError> errors, SourceMap sources) {
        this(node, path, errors, sources, false);
    }

    private Fields(MapNode node, String path, List<SpecError> errors, SourceMap sources, boolean placeholder) {
        this.placeholder = placeholder;
        this.node = node;
        this.path = path;
        this.errors = errors;
        this.sources = sources;
        sources.put(path, node.where());
    }

    String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    Location where() {
        return node.where();
    }

    void error(String key, YamlNode at, String message) {
        errors.add(SpecError.at(at.where(), path(key), message));
    }

    Optional<YamlNode> take(String key) {
        taken.add(key);
        YamlNode.Entry entry = node.entries().get(key);
        if (entry == null || (entry.value() instanceof Scalar s && s.kind() == ScalarKind.NULL)) {
            return Optional.empty();
        }
        sources.put(path(key), entry.value().where());
        return Optional.of(entry.value());
    }

    private YamlNode required(String key) {
        Optional<YamlNode> v = take(key);
        if (v.isEmpty() && !placeholder) {
            errors.add(SpecError.at(node.where(), path(key), "required field is missing"));
        }
        return v.orElse(null);
    }

    // ---- scalars ---------------------------------------------------------------------------

    Optional<String> string(String key) {
        return take(key).map(v -> asString(key, v));
    }

    String requiredString(String key) {
        YamlNode v = required(key);
        return v == null ? "" : asString(key, v);
    }

    private String asString(String key, YamlNode v) {
        if (v instanceof Scalar s) {
            return s.text();
        }
        error(key, v, "must be a string, got " + YamlNode.describe(v));
        return "";
    }

    /**
     * A version, which must be written as a string: YAML reads an unquoted {@code 1.30} as the
     * number 1.3, so a number here is refused rather than guessed at.
     */
    Optional<String> versionString(String key) {
        return take(key).map(v -> asVersion(key, v));
    }

    String requiredVersionString(String key) {
        YamlNode v = required(key);
        return v == null ? "" : asVersion(key, v);
    }

    private String asVersion(String key, YamlNode v) {
        if (v instanceof Scalar s && (s.kind() == ScalarKind.FLOAT || s.kind() == ScalarKind.INT)) {
            error(key, v, "versions are strings: quote it, e.g. \"" + s.text() + "\" (YAML reads an unquoted "
                    + s.text() + " as a number)");
            return "";
        }
        return asString(key, v);
    }

    int integer(String key, int defaultValue) {
        return take(key).map(v -> asInt(key, v)).orElse(defaultValue);
    }

    int requiredInteger(String key) {
        YamlNode v = required(key);
        return v == null ? 0 : asInt(key, v);
    }

    private int asInt(String key, YamlNode v) {
        if (v instanceof Scalar s && s.kind() == ScalarKind.INT && s.text().matches("-?(0|[1-9][0-9]{0,8})")) {
            return Integer.parseInt(s.text());
        }
        error(key, v, "must be a decimal integer, got " + YamlNode.describe(v));
        return 0;
    }

    /** Only {@code true} or {@code false}: YAML 1.1's yes/no/on/off are refused as too easy to misread. */
    boolean bool(String key, boolean defaultValue) {
        return take(key).map(v -> {
            if (v instanceof Scalar s && s.kind() == ScalarKind.BOOL
                    && (s.text().equals("true") || s.text().equals("false"))) {
                return Boolean.parseBoolean(s.text());
            }
            error(key, v, "must be true or false, got " + YamlNode.describe(v));
            return defaultValue;
        }).orElse(defaultValue);
    }

    /** Like {@link #bool}, empty when the key is absent (or wrong: the error is recorded). */
    Optional<Boolean> optionalBool(String key) {
        return take(key).isPresent() ? Optional.of(bool(key, false)) : Optional.empty();
    }

    /** A string parsed by {@code parser}; {@code expected} says what was wanted when it fails. */
    <T> Optional<T> parsed(String key, Function<String, Optional<T>> parser, String expected) {
        return string(key).flatMap(text -> {
            Optional<T> value = parser.apply(text);
            if (value.isEmpty()) {
                error(key, take(key).orElseThrow(), "must be " + expected + ", got \"" + text + "\"");
            }
            return value;
        });
    }

    <T extends Enum<T>> T enumValue(String key, Class<T> type, T defaultValue, Function<T, String> spelling) {
        Optional<String> text = string(key);
        if (text.isEmpty()) {
            return defaultValue;
        }
        for (T constant : type.getEnumConstants()) {
            if (spelling.apply(constant).equals(text.get())) {
                return constant;
            }
        }
        List<String> allowed = new ArrayList<>();
        for (T constant : type.getEnumConstants()) {
            allowed.add(spelling.apply(constant));
        }
        error(key, take(key).orElseThrow(), "must be one of " + String.join(", ", allowed) + ", got \"" + text.get() + "\"");
        return defaultValue;
    }

    // ---- collections -----------------------------------------------------------------------

    Optional<Fields> map(String key) {
        return take(key).flatMap(v -> {
            if (v instanceof MapNode m) {
                return Optional.of(new Fields(m, path(key), errors, sources));
            }
            error(key, v, "must be a mapping, got " + YamlNode.describe(v));
            return Optional.empty();
        });
    }

    Fields requiredMap(String key) {
        YamlNode v = required(key);
        if (v instanceof MapNode m) {
            return new Fields(m, path(key), errors, sources);
        }
        if (v != null) {
            error(key, v, "must be a mapping, got " + YamlNode.describe(v));
        }
        return new Fields(new MapNode(Map.of(), node.where()), path(key), errors, sources, true);
    }

    /** Each item of a list of mappings, read by {@code item}. */
    <T> List<T> listOfMaps(String key, Function<Fields, T> item) {
        List<T> result = new ArrayList<>();
        take(key).ifPresent(v -> {
            if (!(v instanceof ListNode list)) {
                error(key, v, "must be a list, got " + YamlNode.describe(v));
                return;
            }
            for (int i = 0; i < list.items().size(); i++) {
                YamlNode it = list.items().get(i);
                String itemPath = path(key) + "[" + i + "]";
                if (it instanceof MapNode m) {
                    Fields f = new Fields(m, itemPath, errors, sources);
                    result.add(item.apply(f));
                    f.finish();
                } else {
                    errors.add(SpecError.at(it.where(), itemPath, "must be a mapping, got " + YamlNode.describe(it)));
                }
            }
        });
        return result;
    }

    List<String> listOfStrings(String key, List<String> defaultValue) {
        Optional<YamlNode> v = take(key);
        if (v.isEmpty()) {
            return defaultValue;
        }
        if (!(v.get() instanceof ListNode list)) {
            error(key, v.get(), "must be a list, got " + YamlNode.describe(v.get()));
            return defaultValue;
        }
        List<String> result = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode it = list.items().get(i);
            if (it instanceof Scalar s && s.kind() != ScalarKind.NULL) {
                result.add(s.text());
            } else {
                errors.add(SpecError.at(it.where(), path(key) + "[" + i + "]", "must be a string, got " + YamlNode.describe(it)));
            }
        }
        return result;
    }

    /** A mapping of strings to scalar values converted by {@code value}; order kept. */
    <T> Optional<Map<String, T>> scalarMap(String key, Function<String, Optional<T>> value, String expected) {
        return take(key).flatMap(v -> {
            if (!(v instanceof MapNode m)) {
                error(key, v, "must be a mapping, got " + YamlNode.describe(v));
                return Optional.empty();
            }
            Map<String, T> result = new LinkedHashMap<>();
            m.entries().forEach((k, entry) -> {
                String entryPath = path(key) + "." + k;
                sources.put(entryPath, entry.value().where());
                if (entry.value() instanceof Scalar s && s.kind() != ScalarKind.NULL) {
                    Optional<T> converted = value.apply(s.text());
                    if (converted.isPresent()) {
                        result.put(k, converted.get());
                    } else {
                        errors.add(SpecError.at(s.where(), entryPath, "must be " + expected + ", got \"" + s.text() + "\""));
                    }
                } else {
                    errors.add(SpecError.at(entry.value().where(), entryPath,
                            "must be " + expected + ", got " + YamlNode.describe(entry.value())));
                }
            });
            return Optional.of(result);
        });
    }

    Map<String, String> stringMap(String key) {
        return scalarMap(key, Optional::of, "a string").orElse(Map.of());
    }

    /** A free-form mapping as plain Java values (String, Long, BigDecimal, Boolean, null, Map, List). */
    Map<String, Object> freeForm(String key) {
        return take(key).map(v -> {
            if (v instanceof MapNode m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) plain(m);
                return map;
            }
            error(key, v, "must be a mapping, got " + YamlNode.describe(v));
            return Map.<String, Object>of();
        }).orElse(Map.of());
    }

    private static Object plain(YamlNode v) {
        if (v instanceof MapNode m) {
            Map<String, Object> map = new LinkedHashMap<>();
            m.entries().forEach((k, e) -> map.put(k, plain(e.value())));
            return map;
        }
        if (v instanceof ListNode l) {
            return l.items().stream().map(Fields::plain).toList();
        }
        Scalar s = (Scalar) v;
        return switch (s.kind()) {
            case NULL -> null;
            case BOOL -> s.text().equalsIgnoreCase("true") || s.text().equalsIgnoreCase("yes")
                    || s.text().equalsIgnoreCase("on") || s.text().equalsIgnoreCase("y");
            case INT -> integerValue(s.text());
            case FLOAT -> floatValue(s.text());
            case STRING, TIMESTAMP -> s.text();
        };
    }

    /** Numbers enter providerConfig by value, so {@code 10}, {@code 10.0} and {@code 1e1} hash alike. */
    private static Object integerValue(String text) {
        try {
            return new BigDecimal(text.replace("_", "")).stripTrailingZeros();
        } catch (NumberFormatException octalOrHex) {
            return text;
        }
    }

    private static Object floatValue(String text) {
        try {
            return new BigDecimal(text.replace("_", "")).stripTrailingZeros();
        } catch (NumberFormatException infinityOrNan) {
            return text;
        }
    }

    /** Reports every key of this mapping that no reader asked for. */
    void finish() {
        node.entries().forEach((key, entry) -> {
            if (!taken.contains(key)) {
                errors.add(SpecError.at(entry.keyWhere(), path(key), "unknown field"));
            }
        });
    }
}
