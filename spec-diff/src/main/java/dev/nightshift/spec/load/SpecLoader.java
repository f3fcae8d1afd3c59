package dev.nightshift.spec.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.spec.yaml.YamlDocuments;
import dev.nightshift.spec.yaml.YamlError;
import dev.nightshift.spec.yaml.YamlNode;
import dev.nightshift.spec.yaml.YamlText;

/**
 * Loads a spec directory (every {@code *.yaml}/{@code *.yml} below it, multi-document) or a single
 * file, and validates it. Every problem of the load is reported together, each with the file
 * (relative to what was given), line, column and field.
 */
public final class SpecLoader {

    /** The largest spec file read; larger ones are refused unread. */
    public static final long MAX_FILE_BYTES = YamlText.MAX_BYTES;

    /** Loads from the file system. */
    public LoadResult load(Path fileOrDirectory) {
        Map<String, byte[]> files = new java.util.TreeMap<>();
        List<SpecError> errors = new ArrayList<>();
        if (Files.isDirectory(fileOrDirectory)) {
            try (Stream<Path> walk = Files.walk(fileOrDirectory)) {
                for (Path p : walk.filter(Files::isRegularFile).filter(SpecLoader::isYaml).toList()) {
                    String name = fileOrDirectory.relativize(p).toString().replace('\\', '/');
                    read(p, name, errors).ifPresent(bytes -> files.put(name, bytes));
                }
            } catch (IOException e) {
                errors.add(new SpecError(fileOrDirectory.toString(), 1, 1, "", "cannot read the directory: " + e.getMessage()));
            }
        } else if (Files.isRegularFile(fileOrDirectory)) {
            String name = fileOrDirectory.getFileName().toString();
            if (!isYaml(fileOrDirectory)) {
                // Loading it as empty would make every pool look deleted.
                errors.add(new SpecError(name, 1, 1, "", "is not a .yaml or .yml file"));
            } else {
                read(fileOrDirectory, name, errors).ifPresent(bytes -> files.put(name, bytes));
            }
        } else {
            errors.add(new SpecError(fileOrDirectory.toString(), 1, 1, "", "no such file or directory"));
        }
        LoadResult parsed = load(files);
        errors.addAll(parsed.errors());
        return new LoadResult(parsed.specs(), errors);
    }

    /**
     * Loads from file contents keyed by their path (what a Git tree gives), so that the same
     * rules apply whether the specs come from a directory or a commit.
     */
    public LoadResult load(Map<String, byte[]> files) {
        List<YamlError> readErrors = new ArrayList<>();
        List<ParsedDocument> documents = new ArrayList<>();
        SpecReader reader = new SpecReader(readErrors);
        new java.util.TreeMap<>(files).forEach((name, bytes) -> {
            if (!isYaml(Path.of(name))) {
                return;
            }
            Optional<String> text = YamlText.decode(name, bytes, readErrors);
            if (text.isEmpty()) {
                return;
            }
            for (YamlNode document : YamlDocuments.compose(name, text.get(), readErrors)) {
                reader.read(document).ifPresent(documents::add);
            }
        });
        List<SpecError> errors = new ArrayList<>(readErrors.stream().map(SpecError::of).toList());
        errors.addAll(new SpecValidator().validate(documents, reader.invalidClusters()));
        List<ClusterSpec> clusters = new ArrayList<>();
        List<WorkerPoolSpec> pools = new ArrayList<>();
        for (ParsedDocument d : documents) {
            if (d instanceof ParsedDocument.ClusterDocument c) {
                clusters.add(c.spec());
            } else if (d instanceof ParsedDocument.PoolDocument p) {
                pools.add(p.spec());
            }
        }
        return new LoadResult(new SpecSet(clusters, pools), errors);
    }

    private static boolean isYaml(Path p) {
        String n = p.getFileName().toString();
        return n.endsWith(".yaml") || n.endsWith(".yml");
    }

    private static Optional<byte[]> read(Path p, String name, List<SpecError> errors) {
        try {
            if (YamlText.isTooLarge(Files.size(p))) {
                errors.add(SpecError.of(YamlText.tooLarge(name)));
                return Optional.empty();
            }
            return Optional.of(Files.readAllBytes(p));
        } catch (IOException e) {
            errors.add(new SpecError(name, 1, 1, "", "cannot read: " + e.getMessage()));
            return Optional.empty();
        }
    }
}
