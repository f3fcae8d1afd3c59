package dev.nightshift.spec.load;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.assertOnlyError;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.WorkerPoolSpec;

class SpecLoaderFilesTest {

    @TempDir
    Path dir;

    private Path write(String relative, String content) throws IOException {
        Path p = dir.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content, StandardCharsets.UTF_8);
        return p;
    }

    private static String poolNamed(String name) {
        return POOL.replace("name: cpu", "name: " + name);
    }

    @Test
    void yamlAndYmlFilesAreFoundRecursively() throws IOException {
        write("cluster.yaml", CLUSTER);
        write("pools/cpu.yaml", poolNamed("cpu"));
        write("pools/gpu/gpu.yml", poolNamed("gpu"));
        write("a/b/c/deep.yaml", poolNamed("deep"));

        LoadResult result = new SpecLoader().load(dir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).extracting(ClusterSpec::name).containsExactly("prod");
        assertThat(result.specs().pools()).extracting(WorkerPoolSpec::name).containsExactly("cpu", "deep", "gpu");
    }

    @Test
    void everyDocumentOfAMultiDocumentFileIsLoaded() throws IOException {
        write("all.yaml", CLUSTER + "---\n" + poolNamed("cpu") + "---\n" + poolNamed("gpu"));

        LoadResult result = new SpecLoader().load(dir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).extracting(ClusterSpec::name).containsExactly("prod");
        assertThat(result.specs().pools()).extracting(WorkerPoolSpec::name).containsExactly("cpu", "gpu");
    }

    @Test
    void emptyDocumentsBetweenSeparatorsAreSkipped() throws IOException {
        write("all.yaml", "---\n" + CLUSTER + "---\n---\n# only a comment\n---\n" + POOL);

        LoadResult result = new SpecLoader().load(dir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools()).hasSize(1);
    }

    @Test
    void aTrailingDocumentSeparatorIsAllowed() throws IOException {
        write("all.yaml", CLUSTER + "---\n" + POOL + "---\n");

        LoadResult result = new SpecLoader().load(dir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools()).hasSize(1);
    }

    @Test
    void aFileWithOnlyCommentsIsAllowed() throws IOException {
        write("cluster.yaml", CLUSTER);
        write("pools/empty.yaml", "# no pools yet\n");

        LoadResult result = new SpecLoader().load(dir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).hasSize(1);
    }

    @Test
    void filesThatAreNotYamlAreIgnored() throws IOException {
        write("cluster.yaml", CLUSTER);
        write("pools/cpu.yaml", POOL);
        write("README.md", "kind: {{ not: yaml");
        write("pools/notes.txt", "apiVersion: nope\n");
        write("pools/cpu.yaml.orig", "kind: WorkerPool\n  broken: [\n");
        write("pools/cpu.json", "{\"kind\": \"WorkerPool\"}");

        LoadResult result = new SpecLoader().load(dir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools()).extracting(WorkerPoolSpec::name).containsExactly("cpu");
    }

    @Test
    void filesNotEndingInYamlAreIgnoredByTheContentOverloadToo() {
        LoadResult result = new SpecLoader().load(Map.of(
                "cluster.yaml", CLUSTER.getBytes(StandardCharsets.UTF_8),
                "notes.txt", "{{{".getBytes(StandardCharsets.UTF_8)));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).hasSize(1);
    }

    @Test
    void errorFilesAreRelativeToTheDirectoryGiven() throws IOException {
        write("cluster.yaml", CLUSTER);
        write("pools/cpu.yaml", pool("  maxSurge: abc"));

        LoadResult result = new SpecLoader().load(dir);

        assertOnlyError(result, "pools/cpu.yaml", 8, 13, "spec.maxSurge", "must be an int >= 0 or a percentage");
    }

    @Test
    void errorFilesOfDeeplyNestedFilesUseForwardSlashes() throws IOException {
        write("cluster.yaml", CLUSTER);
        write("a/b/c.yml", pool("  interval: 5d"));

        LoadResult result = new SpecLoader().load(dir);

        assertOnlyError(result, "a/b/c.yml", 8, 13, "spec.interval", "must be a duration");
    }

    @Test
    void aSingleFileCanBeGivenDirectly() throws IOException {
        Path file = write("specs/all.yaml", CLUSTER + "---\n" + POOL);

        LoadResult result = new SpecLoader().load(file);

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).hasSize(1);
        assertThat(result.specs().pools()).hasSize(1);
    }

    @Test
    void errorsOfASingleFileGivenDirectlyNameTheFileOnly() throws IOException {
        Path file = write("specs/all.yaml", CLUSTER + "---\n" + pool("  maxSurge: abc"));

        LoadResult result = new SpecLoader().load(file);

        // the pool document starts after the 5 cluster lines and the separator: its line 8 is line 14
        assertOnlyError(result, "all.yaml", 14, 13, "spec.maxSurge", "must be an int >= 0 or a percentage");
    }

    @Test
    void aMissingPathIsAnError() {
        Path missing = dir.resolve("does-not-exist");

        LoadResult result = new SpecLoader().load(missing);

        assertThat(result.valid()).isFalse();
        assertOnlyError(result, missing.toString(), 1, 1, "", "no such file or directory");
    }

    @Test
    void aFileGivenDirectlyThatIsNotYamlIsNotSilentlyLoadedAsAnEmptySpec() throws IOException {
        Path file = write("specs.txt", CLUSTER + "---\n" + POOL);

        LoadResult result = new SpecLoader().load(file);

        // Either the file is read, or its refusal is reported: never an empty, valid spec set.
        assertThat(result.errors().isEmpty() && result.specs().clusters().isEmpty())
                .as("loaded %s: errors %s, clusters %s", file, result.errors(), result.specs().clusters())
                .isFalse();
    }

    @Test
    void theSingleClusterExampleLoadsWithoutErrors() {
        LoadResult result = new SpecLoader().load(Path.of("../examples/single"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).extracting(ClusterSpec::name).containsExactly("prod-eu1");
        assertThat(result.specs().pools()).extracting(WorkerPoolSpec::name).containsExactly("cpu-worker");
    }

    @Test
    void theMultiFileExampleLoadsWithoutErrors() {
        LoadResult result = new SpecLoader().load(Path.of("../examples/multi"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().clusters()).extracting(ClusterSpec::name).containsExactly("demo");
        assertThat(result.specs().pools()).extracting(WorkerPoolSpec::name)
                .containsExactly("bastion", "batch", "cpu-worker", "gpu-worker");
    }

    @Test
    void theMultiNextExampleLoadsWithoutErrors() {
        LoadResult result = new SpecLoader().load(Path.of("../examples/multi-next"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools()).hasSize(4);
    }

    @Test
    void theSameFilesGiveTheSameResultFromADirectoryAndFromContents() throws IOException {
        write("cluster.yaml", CLUSTER);
        write("pools/cpu.yaml", pool("  role: worker"));

        LoadResult fromDirectory = new SpecLoader().load(dir);
        LoadResult fromContents = SpecFixtures.loadPool(pool("  role: worker"));

        assertThat(fromDirectory.errors()).isNotEmpty().isEqualTo(fromContents.errors());
    }
}
