/**
 * The one strict YAML reader of Nightshift: the spec files and the agent's configuration file are
 * both read through it, so that both refuse the same things with the same words.
 *
 * <p>{@link dev.nightshift.spec.yaml.YamlDocuments} composes a file into {@link dev.nightshift.spec.yaml.YamlNode}
 * trees (never constructing objects) with every value's place: tags other than YAML's own, merge keys,
 * complex keys and duplicate keys are refused, and aliases, nesting and size are limited.
 * {@link dev.nightshift.spec.yaml.Fields} reads one mapping's fields into typed values: a value of the
 * wrong type is named with the type expected, YAML 1.1's traps ({@code yes}/{@code no}, octal-looking
 * numbers, unquoted versions) are refused rather than guessed at, and a key nobody asked for is an
 * unknown field. Every problem is a {@link dev.nightshift.spec.yaml.YamlError} at {@code file:line:column}
 * (1-based) with the field's path.
 *
 * <p>A pure library: it knows nothing of specs or of the agent.
 */
package dev.nightshift.spec.yaml;
