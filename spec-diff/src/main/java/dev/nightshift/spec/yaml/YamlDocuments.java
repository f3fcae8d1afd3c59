package dev.nightshift.spec.yaml;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Composes the documents of one file into {@link YamlNode} trees. Only composition runs, never
 * construction: explicit tags other than YAML's own are refused, duplicate keys and merge keys
 * are errors, and aliases, nesting and size are limited.
 */
public final class YamlDocuments {

    /** Aliases of mappings and lists in one file; SnakeYAML refuses more (scalar aliases are not counted). */
    public static final int MAX_ALIASES = 50;
    public static final int MAX_NESTING = 50;
    public static final int MAX_CODE_POINTS = YamlText.MAX_BYTES;
    /** Values in one document after aliases are expanded: bounds what a few aliases can multiply to. */
    public static final int MAX_EXPANDED_VALUES = 50_000;

    private static final Set<Tag> ALLOWED_TAGS =
            Set.of(Tag.STR, Tag.INT, Tag.FLOAT, Tag.BOOL, Tag.NULL, Tag.TIMESTAMP, Tag.MAP, Tag.SEQ);

    private final String file;
    private final List<YamlError> errors;
    private int expanded;
    private boolean tooLarge;

    private YamlDocuments(String file, List<YamlError> errors) {
        this.file = file;
        this.errors = errors;
    }

    /**
     * The documents of {@code content}, empty ones left out; on any error, none, and the errors are
     * added to {@code errors}.
     */
    public static List<YamlNode> compose(String file, String content, List<YamlError> errors) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setNestingDepthLimit(MAX_NESTING);
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setAllowRecursiveKeys(false);
        Yaml yaml = new Yaml(options);
        YamlDocuments reader = new YamlDocuments(file, errors);
        List<YamlNode> documents = new ArrayList<>();
        int before = errors.size();
        try {
            for (Node root : yaml.composeAll(new StringReader(content))) {
                if (root == null || isEmpty(root)) {
                    continue;
                }
                reader.expanded = 0;
                reader.tooLarge = false;
                documents.add(reader.convert(root, 0, ""));
            }
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
            String context = e.getContext() != null ? e.getContext() + ": " : "";
            errors.add(new YamlError(file, mark == null ? 1 : mark.getLine() + 1,
                    mark == null ? 1 : mark.getColumn() + 1, "", "invalid YAML: " + context + oneLine(problem)));
            return List.of();
        } catch (YAMLException e) {
            // SnakeYAML's limits (aliases, code points) say no place.
            errors.add(YamlError.ofFile(file, "invalid YAML: " + oneLine(e.getMessage())));
            return List.of();
        }
        return errors.size() == before ? documents : List.of();
    }

    /**
     * The one document of a file that holds at most one, such as a configuration file: empty for a
     * file with none, or on any error (then added to {@code errors}). A second document is an error
     * at its start rather than silently ignored or merged.
     */
    public static Optional<YamlNode> single(String file, String content, List<YamlError> errors) {
        List<YamlNode> documents = compose(file, content, errors);
        if (documents.size() > 1) {
            errors.add(YamlError.at(documents.get(1).where(), "",
                    "a second YAML document: this file holds one (remove the --- before it, or the document)"));
            return Optional.empty();
        }
        return documents.stream().findFirst();
    }

    /** A document with nothing in it ({@code ---} at the end of a file, or only a comment). */
    private static boolean isEmpty(Node root) {
        return root instanceof ScalarNode s && s.getTag().equals(Tag.NULL) && s.getValue().isEmpty();
    }

    private static String oneLine(String s) {
        return s == null ? "unreadable" : s.replaceAll("\\s+", " ").trim();
    }

    private Location where(Node node) {
        Mark m = node.getStartMark();
        return new Location(file, m.getLine() + 1, m.getColumn() + 1);
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private YamlNode convert(Node node, int depth, String path) {
        if (depth > MAX_NESTING) {
            errors.add(YamlError.at(where(node), path, "nested deeper than " + MAX_NESTING + " levels"));
            return new YamlNode.Scalar("", YamlNode.ScalarKind.NULL, where(node));
        }
        if (++expanded > MAX_EXPANDED_VALUES) {
            if (!tooLarge) {
                tooLarge = true;
                errors.add(YamlError.at(where(node), path, "the document expands to more than " + MAX_EXPANDED_VALUES
                        + " values (through aliases); write it out or shorten it"));
            }
            return new YamlNode.Scalar("", YamlNode.ScalarKind.NULL, where(node));
        }
        if (!ALLOWED_TAGS.contains(node.getTag()) && !(node.getTag().equals(Tag.MERGE))) {
            errors.add(YamlError.at(where(node), path, "the YAML tag " + node.getTag().getValue()
                    + " is not allowed: only plain mappings, lists and scalars are read"));
        }
        if (node instanceof MappingNode map) {
            Map<String, YamlNode.Entry> entries = new LinkedHashMap<>();
            for (NodeTuple tuple : map.getValue()) {
                Node keyNode = tuple.getKeyNode();
                if (keyNode.getTag().equals(Tag.MERGE)) {
                    errors.add(YamlError.at(where(keyNode), path, "merge keys (<<) are not supported: write the fields out"));
                    continue;
                }
                if (!(keyNode instanceof ScalarNode key)) {
                    errors.add(YamlError.at(where(keyNode), path, "mapping keys must be plain scalars"));
                    continue;
                }
                if (entries.containsKey(key.getValue())) {
                    Location first = entries.get(key.getValue()).keyWhere();
                    errors.add(YamlError.at(where(keyNode), child(path, key.getValue()),
                            "duplicate key (first set at line " + first.line() + ")"));
                    continue;
                }
                entries.put(key.getValue(), new YamlNode.Entry(where(keyNode),
                        convert(tuple.getValueNode(), depth + 1, child(path, key.getValue()))));
            }
            return new YamlNode.MapNode(entries, where(node));
        }
        if (node instanceof SequenceNode seq) {
            List<YamlNode> items = new ArrayList<>();
            for (int i = 0; i < seq.getValue().size(); i++) {
                items.add(convert(seq.getValue().get(i), depth + 1, path + "[" + i + "]"));
            }
            return new YamlNode.ListNode(items, where(node));
        }
        ScalarNode scalar = (ScalarNode) node;
        return new YamlNode.Scalar(scalar.getValue(), kindOf(scalar.getTag()), where(node));
    }

    private static YamlNode.ScalarKind kindOf(Tag tag) {
        if (tag.equals(Tag.INT)) {
            return YamlNode.ScalarKind.INT;
        }
        if (tag.equals(Tag.FLOAT)) {
            return YamlNode.ScalarKind.FLOAT;
        }
        if (tag.equals(Tag.BOOL)) {
            return YamlNode.ScalarKind.BOOL;
        }
        if (tag.equals(Tag.NULL)) {
            return YamlNode.ScalarKind.NULL;
        }
        if (tag.equals(Tag.TIMESTAMP)) {
            return YamlNode.ScalarKind.TIMESTAMP;
        }
        return YamlNode.ScalarKind.STRING;
    }
}
