package dev.nightshift.spec.model;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;


/**
 * Canonical text of values: keys sorted, numbers by value, strings JSON-escaped. Equal values give
 * equal text whatever their spelling; the model computes it once, when it is built.
 */
public final class CanonicalText {

    private CanonicalText() {
    }

    public static String of(Object value) {
        StringBuilder b = new StringBuilder();
        append(b, value);
        return b.toString();
    }

    /** {@code {"cpu":"0.08","memory":"1073741824"}}: resources sorted, amounts in base units. */
    public static String quantities(Map<String, Quantity> map) {
        if (map.isEmpty()) {
            return "{}";
        }
        StringBuilder b = new StringBuilder("{");
        (map instanceof SortedMap<String, Quantity> sorted ? sorted : new TreeMap<>(map)).forEach((k, v) -> {
            if (b.length() > 1) {
                b.append(',');
            }
            string(b, k);
            b.append(':');
            string(b, v.canonical());
        });
        return b.append('}').toString();
    }

    private static void append(StringBuilder b, Object value) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof Map<?, ?> map && map.isEmpty()) {
            b.append("{}");
        } else if (value instanceof Map<?, ?> map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : new TreeMap<>(map).entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(':');
                append(b, e.getValue());
            }
            b.append('}');
        } else if (value instanceof List<?> list) {
            b.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                append(b, list.get(i));
            }
            b.append(']');
        } else if (value instanceof BigDecimal d) {
            b.append(d.stripTrailingZeros().toPlainString());
        } else if (value instanceof Boolean || value instanceof Number) {
            b.append(value);
        } else {
            string(b, value.toString());
        }
    }

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
