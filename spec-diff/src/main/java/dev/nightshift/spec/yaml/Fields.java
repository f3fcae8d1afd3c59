package dev.nightshift.spec.yaml;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import dev.nightshift.spec.yaml.YamlNode.ListNode;
import dev.nightshift.spec.yaml.YamlNode.MapNode;
import dev.nightshift.spec.yaml.YamlNode.Scalar;
import dev.nightshift.spec.yaml.YamlNode.ScalarKind;

/**
 * Reads the fields of one YAML mapping into typed values. A wrong or missing value becomes a
 * {@link YamlError} and a placeholder, so that one pass reports every problem of a document;
 * the caller discards a document that produced errors. {@link #finish()} reports unknown fields.
 *
 * <p>A value written with nothing ({@code key:}, {@code ~}, {@code null}) is as if the key were not
 * written. A string field takes any scalar's text as written, so YAML 1.1's resolution never
 * changes it ({@code ref: no} is "no", {@code 1.30} keeps its 0); typed fields refuse what YAML 1.1
 * would misread instead of guessing.
 */
public final class Fields {

    /** What a 32-bit int can hold, written in plain decimal: no sign but -, no leading 0 (octal in YAML 1.1), no _, 0x or 1:30. */
    private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]{0,8})");
    private static final Pattern LEADING_ZERO = Pattern.compile("[-+]?0[0-9_]+");

    private final MapNode node;
    private final String path;
    private final List<YamlError> errors;
    private final SourceMap sources;
    private final QuotedScalars quoted;
    private final Set<String> taken = new HashSet<>();
    /** Stands in for a required mapping that is missing: that one error is enough, its fields stay quiet. */
    private final boolean placeholder;

    private Fields(MapNode node, String path, List<YamlError> errors, SourceMap sources, boolean placeholder,
                   QuotedScalars quoted) {
        this.placeholder = placeholder;
        this.node = node;
        this.path = path;
        this.errors = errors;
        this.sources = sources;
        this.quoted = quoted;
        sources.put(path, node.where());
    }

    /** The fields of a document's top mapping; their places go to {@code sources}, their problems to {@code errors}. */
    public static Fields of(MapNode document, List<YamlError> errors, SourceMap sources, QuotedScalars quoted) {
        return new Fields(document, "", errors, sources, false, quoted);
    }

    /** The fields of a document's top mapping, for a reader that needs no places after reading. */
    public static Fields of(MapNode document, List<YamlError> errors, QuotedScalars quoted) {
        return of(document, errors, new SourceMap(document.where()), quoted);
    }

    private Fields child(MapNode m, String childPath) {
        return new Fields(m, childPath, errors, sources, false, quoted);
    }

    /** This mapping's path joined with {@code key}, e.g. {@code spec.machine}. */
    public String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** Where the fields of this document were written, as read so far. */
    public SourceMap sources() {
        return sources;
    }

    /** Where this mapping starts. */
    public Location where() {
        return node.where();
    }

    /** The keys written, in document order. */
    public List<String> keys() {
        return List.copyOf(node.entries().keySet());
    }

    /** Whether {@code key} is written, even with nothing after it; unlike {@link #take}, it does not make the key known. */
    public boolean written(String key) {
        return node.entries().containsKey(key);
    }

    /** A problem with the field {@code key}, placed at {@code at} (its value, or a field it depends on). */
    public void error(String key, YamlNode at, String message) {
        error(key, at.where(), message);
    }

    public void error(String key, Location at, String message) {
        errors.add(YamlError.at(at, path(key), message));
    }

    /** Refuses {@code key} itself, placed at the key: a field that must not be written here. It is not reported again as unknown. */
    public void refuse(String key, String message) {
        taken.add(key);
        YamlNode.Entry entry = node.entries().get(key);
        error(key, entry == null ? node.where() : entry.keyWhere(), message);
    }

    /** The value of {@code key}, empty when not written or written with nothing; the key is known from now on. */
    public Optional<YamlNode> take(String key) {
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
            errors.add(YamlError.at(node.where(), path(key), "required field is missing"));
        }
        return v.orElse(null);
    }

    // ---- scalars ---------------------------------------------------------------------------

    /** The text of a scalar; empty when not written, or not a scalar (the error is recorded, and nothing further checks a stand-in). */
    public Optional<String> string(String key) {
        return take(key).flatMap(v -> {
            if (v instanceof Scalar s) {
                return Optional.of(s.text());
            }
            asString(key, v);
            return Optional.empty();
        });
    }

    public String requiredString(String key) {
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
    public Optional<String> versionString(String key) {
        return take(key).map(v -> asVersion(key, v));
    }

    public String requiredVersionString(String key) {
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

    public int integer(String key, int defaultValue) {
        return take(key).map(v -> asInt(key, v, Integer.MIN_VALUE, Integer.MAX_VALUE, "a decimal integer").orElse(0))
                .orElse(defaultValue);
    }

    public int requiredInteger(String key) {
        YamlNode v = required(key);
        return v == null ? 0 : asInt(key, v, Integer.MIN_VALUE, Integer.MAX_VALUE, "a decimal integer").orElse(0);
    }

    /**
     * A decimal integer from {@code min} to {@code max}; empty when not written, or wrong (the error
     * is recorded, saying it {@code "must be " + expected}).
     */
    public Optional<Integer> integer(String key, int min, int max, String expected) {
        return take(key).flatMap(v -> asInt(key, v, min, max, expected));
    }

    private Optional<Integer> asInt(String key, YamlNode v, int min, int max, String expected) {
        if (v instanceof Scalar s && (s.kind() == ScalarKind.INT || readByText(s)) && DECIMAL.matcher(s.text()).matches()) {
            int value = Integer.parseInt(s.text());
            if (value >= min && value <= max) {
                return Optional.of(value);
            }
        }
        boolean octal = v instanceof Scalar s && LEADING_ZERO.matcher(s.text()).matches();
        error(key, v, "must be " + expected + ", got " + YamlNode.describe(v)
                + (octal ? " (a leading 0 means octal in YAML 1.1: write the number without it)" : ""));
        return Optional.empty();
    }

    /** A quoted scalar stands for its text where a number or boolean is expected, if this reader says so. */
    private boolean readByText(Scalar s) {
        return quoted == QuotedScalars.READ_BY_TEXT && s.kind() == ScalarKind.STRING;
    }

    /** Only {@code true} or {@code false}: YAML 1.1's yes/no/on/off are refused as too easy to misread. */
    public boolean bool(String key, boolean defaultValue) {
        return take(key).map(v -> {
            if (v instanceof Scalar s && (s.kind() == ScalarKind.BOOL || readByText(s))
                    && (s.text().equals("true") || s.text().equals("false"))) {
                return Boolean.parseBoolean(s.text());
            }
            error(key, v, "must be true or false, got " + YamlNode.describe(v));
            return defaultValue;
        }).orElse(defaultValue);
    }

    /** Like {@link #bool}, empty when the key is absent (or wrong: the error is recorded). */
    public Optional<Boolean> optionalBool(String key) {
        return take(key).isPresent() ? Optional.of(bool(key, false)) : Optional.empty();
    }

    /** A string parsed by {@code parser}; {@code expected} says what was wanted when it fails. */
    public <T> Optional<T> parsed(String key, Function<String, Optional<T>> parser, String expected) {
        return string(key).flatMap(text -> {
            Optional<T> value = parser.apply(text);
            if (value.isEmpty()) {
                error(key, take(key).orElseThrow(), "must be " + expected + ", got \"" + text + "\"");
            }
            return value;
        });
    }

    public <T extends Enum<T>> T enumValue(String key, Class<T> type, T defaultValue, Function<T, String> spelling) {
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

    public Optional<Fields> map(String key) {
        return take(key).flatMap(v -> {
            if (v instanceof MapNode m) {
                return Optional.of(child(m, path(key)));
            }
            error(key, v, "must be a mapping, got " + YamlNode.describe(v));
            return Optional.empty();
        });
    }

    public Fields requiredMap(String key) {
        YamlNode v = required(key);
        if (v instanceof MapNode m) {
            return child(m, path(key));
        }
        if (v != null) {
            error(key, v, "must be a mapping, got " + YamlNode.describe(v));
        }
        return new Fields(new MapNode(Map.of(), node.where()), path(key), errors, sources, true, quoted);
    }

    /**
     * The mapping at {@code key}; when it is not written (or is not a mapping: that error is
     * recorded), an empty one at this mapping's place, so that optional sections read alike.
     */
    public Fields mapOrEmpty(String key) {
        return map(key).orElseGet(() -> child(new MapNode(Map.of(), node.where()), path(key)));
    }

    /** Each item of a list of mappings, read by {@code item}. */
    public <T> List<T> listOfMaps(String key, Function<Fields, T> item) {
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
                    Fields f = child(m, itemPath);
                    result.add(item.apply(f));
                    f.finish();
                } else {
                    errors.add(YamlError.at(it.where(), itemPath, "must be a mapping, got " + YamlNode.describe(it)));
                }
            }
        });
        return result;
    }

    public List<String> listOfStrings(String key, List<String> defaultValue) {
        return strings(key, "").orElse(defaultValue);
    }

    /**
     * A list of strings; empty when not written, or not a list (the error is recorded, with
     * {@code example}, such as {@code ["/bin/update-node"]}, when not empty). A bad item is an error
     * at the item.
     */
    public Optional<List<String>> strings(String key, String example) {
        Optional<YamlNode> v = take(key);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (!(v.get() instanceof ListNode list)) {
            error(key, v.get(), "must be a list" + (example.isEmpty() ? "" : ", such as " + example) + ", got "
                    + YamlNode.describe(v.get()));
            return Optional.empty();
        }
        List<String> result = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode it = list.items().get(i);
            // Each item's place, for checks made after reading (a pool named in rollout.after that does not exist).
            sources.put(path(key) + "[" + i + "]", it.where());
            if (it instanceof Scalar s && s.kind() != ScalarKind.NULL) {
                result.add(s.text());
            } else {
                errors.add(YamlError.at(it.where(), path(key) + "[" + i + "]", "must be a string, got " + YamlNode.describe(it)));
            }
        }
        return Optional.of(result);
    }

    /** A mapping of strings to scalar values converted by {@code value}; order kept. */
    public <T> Optional<Map<String, T>> scalarMap(String key, Function<String, Optional<T>> value, String expected) {
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
                        errors.add(YamlError.at(s.where(), entryPath, "must be " + expected + ", got \"" + s.text() + "\""));
                    }
                } else {
                    errors.add(YamlError.at(entry.value().where(), entryPath,
                            "must be " + expected + ", got " + YamlNode.describe(entry.value())));
                }
            });
            return Optional.of(result);
        });
    }

    public Map<String, String> stringMap(String key) {
        return scalarMap(key, Optional::of, "a string").orElse(Map.of());
    }

    /** A free-form mapping as plain Java values (String, Long, BigDecimal, Boolean, null, Map, List). */
    public Map<String, Object> freeForm(String key) {
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
    public void finish() {
        node.entries().forEach((key, entry) -> {
            if (!taken.contains(key)) {
                errors.add(YamlError.at(entry.keyWhere(), path(key), "unknown field"));
            }
        });
    }
}
