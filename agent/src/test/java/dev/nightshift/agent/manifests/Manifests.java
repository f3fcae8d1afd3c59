package dev.nightshift.agent.manifests;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The repository's {@code manifests/} directory as documents: what {@code kubectl kustomize} renders of the base and
 * each overlay (with the real {@code kubectl} on the {@code PATH}: its absence fails the test, never skips it), and
 * the files themselves.
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

    /** The overlays, by name: {@code cluster-api}, {@code http}, {@code simulated}. */
    static final List<String> OVERLAYS = List.of("cluster-api", "http", "simulated");

    /** {@code manifests/overlays/<name>}. */
    static Path overlay(String name) {
        return directory().resolve("overlays").resolve(name);
    }

    /** What {@code kubectl kustomize manifests/overlays/<name>} renders. */
    static List<Document> overlayRendered(String name) {
        return rendered(overlay(name));
    }

    /**
     * What {@code kubectl kustomize DIR} renders, as documents whose {@code file} is {@code DIR}, in its order (the
     * Namespace first). Its warnings (newer kustomize calls {@code bases:} deprecated) are not errors; a failure is.
     */
    static List<Document> rendered(Path kustomization) {
        try {
            Path err = Files.createTempFile("kustomize", ".err");
            try {
                Process process = new ProcessBuilder(kubectl().toString(), "kustomize", kustomization.toString())
                        .redirectError(err.toFile()).start();
                String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new AssertionError("kubectl kustomize " + kustomization + " failed: " + Files.readString(err));
                }
                return parse(kustomization, out);
            } finally {
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The real kubectl on the {@code PATH} (Debian's {@code kubernetes-client}; ./verify installs it). */
    static Path kubectl() {
        return Optional.ofNullable(System.getenv("PATH")).stream()
                .flatMap(path -> Stream.of(path.split(File.pathSeparator)))
                .map(dir -> Path.of(dir, "kubectl"))
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new AssertionError("kubectl is not on the PATH: install Debian's kubernetes-client"
                        + " (apt-get install -y kubernetes-client); ./verify installs it"));
    }

    /**
     * Reads every document of a file, strictly: duplicate keys are errors (SnakeYAML allows them by
     * default; kubectl would silently keep the last one). Empty documents are skipped, as kubectl does.
     */
    static List<Document> read(Path file) {
        try {
            return parse(file, Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The documents of {@code text}, read from {@code file}, as {@link #read} reads them. */
    static List<Document> parse(Path file, String text) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        List<Document> documents = new ArrayList<>();
        int index = 0;
        for (Object doc : new Yaml(options).loadAll(text)) {
            if (doc != null) {
                if (!(doc instanceof Map<?, ?>)) {
                    throw new IllegalArgumentException(file + " document " + index + " is not a mapping");
                }
                documents.add(new Document(file, index, map(doc)));
            }
            index++;
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
