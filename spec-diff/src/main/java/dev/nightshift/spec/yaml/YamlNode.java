package dev.nightshift.spec.yaml;

import java.util.List;
import java.util.Map;

/**
 * A YAML value with the place it was written. Built from SnakeYAML's composed node tree, never
 * from constructed Java objects, so no type named in the document is ever instantiated.
 */
public sealed interface YamlNode {

    Location where();

    /** A mapping; keys in document order, all distinct. */
    record MapNode(Map<String, Entry> entries, Location where) implements YamlNode {
    }

    /** A mapping's value with the place of its key, where an unknown or duplicate key is reported. */
    record Entry(Location keyWhere, YamlNode value) {
    }

    record ListNode(List<YamlNode> items, Location where) implements YamlNode {
    }

    /**
     * A scalar as written.
     *
     * @param text  the characters of the value, without quotes: a string field reads them as they
     *              are, so {@code ref: no} is the branch "no" and {@code 1.30} keeps its 0
     * @param kind  what YAML 1.1 resolves a plain scalar to; quoted scalars are always {@code STRING}
     */
    record Scalar(String text, ScalarKind kind, Location where) implements YamlNode {
    }

    enum ScalarKind {
        STRING, INT, FLOAT, BOOL, NULL, TIMESTAMP
    }

    /** How an error message names the value found: {@code a mapping}, {@code a list}, {@code nothing} or the text quoted. */
    static String describe(YamlNode node) {
        if (node instanceof MapNode) {
            return "a mapping";
        }
        if (node instanceof ListNode) {
            return "a list";
        }
        Scalar s = (Scalar) node;
        return s.kind() == ScalarKind.NULL ? "nothing" : "\"" + s.text() + "\"";
    }
}
