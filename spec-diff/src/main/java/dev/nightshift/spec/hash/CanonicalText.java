package dev.nightshift.spec.hash;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.nightshift.spec.model.Quantity;

/** Canonical text of free-form values: keys sorted, numbers by value, strings JSON-escaped. */
final class CanonicalText {

    private CanonicalText() {
    }

    static String of(Object value) {
        StringBuilder b = new StringBuilder();
        append(b, value);
        return b.toString();
    }

    /** {@code {"cpu":"0.08","memory":"1073741824"}}: resources sorted, amounts in base units. */
    static String quantities(Map<String, Quantity> map) {
        StringBuilder b = new StringBuilder("{");
        new TreeMap<>(map).forEach((k, v) -> {
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
