package dev.nightshift.agent.manifests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The repository's {@code manifests/} directory as documents: what {@code kubectl apply -f manifests/}
 * applies (the directory's own {@code .yaml}/{@code .yml}/{@code .json} files, in name order; not its
 * subdirectories) and everything else under it.
 */
final class Manifests {

    /** One YAML document of one file; {@code index} counts from 0 within the file. */
    record Document(Path file, int index, Map<String, Object> content) {

        String kind() {
            return String.valueOf(content.get("kind"));
        }

        Map<String, Object> metadata() {
            return Manifests.map(content.get("metadata"));
        }

        String name() {
            return String.valueOf(metadata().get("name"));
        }

        /** Empty for cluster-scoped objects (and for namespaced ones that do not say, which ManifestsIT forbids). */
        String namespace() {
            return Optional.ofNullable(metadata().get("namespace")).map(String::valueOf).orElse("");
        }

        @Override
        public String toString() {
            return file.getFileName() + "#" + index + " " + kind() + " " + name();
        }
    }

    private Manifests() {
    }

    /** The directory failsafe names in the system property {@code nightshift.manifests}. */
    static Path directory() {
        String dir = System.getProperty("nightshift.manifests");
        if (dir == null) {
            throw new IllegalStateException("system property nightshift.manifests is not set: run through failsafe (mvn verify)");
        }
        return Path.of(dir);
    }

    /** The files {@code kubectl apply -f DIR} reads, in the order it applies them. */
    static List<Path> appliedFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().matches(".*\\.(yaml|yml|json)"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every document of the applied files, in apply order. */
    static List<Document> applied(Path dir) {
        List<Document> documents = new ArrayList<>();
        for (Path file : appliedFiles(dir)) {
            documents.addAll(read(file));
        }
        return documents;
    }

    /**
     * Reads every document of a file, strictly: duplicate keys are errors (SnakeYAML allows them by
     * default; kubectl would silently keep the last one). Empty documents are skipped, as kubectl does.
     */
    static List<Document> read(Path file) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        List<Document> documents = new ArrayList<>();
        try {
            int index = 0;
            for (Object doc : new Yaml(options).loadAll(Files.readString(file, StandardCharsets.UTF_8))) {
                if (doc != null) {
                    if (!(doc instanceof Map<?, ?>)) {
                        throw new IllegalArgumentException(file + " document " + index + " is not a mapping");
                    }
                    documents.add(new Document(file, index, map(doc)));
                }
                index++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return value instanceof List<?> l ? (List<Object>) l : List.of();
    }

    static List<String> strings(Object value) {
        return list(value).stream().map(String::valueOf).toList();
    }
}
