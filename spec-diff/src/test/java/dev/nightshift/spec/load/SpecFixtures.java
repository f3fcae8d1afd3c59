package dev.nightshift.spec.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import dev.nightshift.spec.model.ResolvedPool;

/**
 * A valid base cluster and pool, so that each test changes one thing, and assertions on
 * {@link SpecError}s. Line numbers of the base documents are fixed: extra cluster spec lines start
 * at line 6, extra pool spec lines at line 8.
 */
public final class SpecFixtures {

    public static final String CLUSTER_FILE = "cluster.yaml";
    public static final String POOL_FILE = "pools/cpu.yaml";

    /** Lines 1-5; {@link #cluster(String...)} appends spec lines from line 6. */
    public static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    /** Lines 1-7; {@link #pool(String...)} appends spec lines from line 8. */
    public static final String POOL = """
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: cpu, cluster: prod}
            spec:
              minimum: 1
              maximum: 3
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    private SpecFixtures() {
    }

    /** The base cluster with {@code specLines} (each a full line, indentation included) added to its spec. */
    public static String cluster(String... specLines) {
        return CLUSTER + lines(specLines);
    }

    /** The base pool with {@code specLines} (each a full line, indentation included) added to its spec. */
    public static String pool(String... specLines) {
        return POOL + lines(specLines);
    }

    private static String lines(String... lines) {
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l).append('\n');
        }
        return b.toString();
    }

    /** Loads alternating file names and contents. */
    public static LoadResult load(String... nameThenContent) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int i = 0; i < nameThenContent.length; i += 2) {
            files.put(nameThenContent[i], nameThenContent[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return new SpecLoader().load(files);
    }

    /** The base cluster in {@value #CLUSTER_FILE} and {@code pool} in {@value #POOL_FILE}. */
    public static LoadResult loadPool(String pool) {
        return load(CLUSTER_FILE, CLUSTER, POOL_FILE, pool);
    }

    /** {@code cluster} alone in {@value #CLUSTER_FILE} (a cluster without pools is valid). */
    public static LoadResult loadCluster(String cluster) {
        return load(CLUSTER_FILE, cluster);
    }

    /** The single resolved pool of a load that must be valid. */
    public static ResolvedPool resolvedPool(LoadResult result) {
        assertThat(result.errors()).as("errors of a load expected to be valid").isEmpty();
        assertThat(result.specs().resolvedPools("prod")).hasSize(1);
        return result.specs().resolvedPools("prod").get(0);
    }

    /** Asserts that the load produced exactly one error, at that place and field, saying {@code phrase}. */
    public static void assertOnlyError(LoadResult result, String file, int line, int column, String path, String phrase) {
        assertThat(result.errors()).singleElement().satisfies(error(file, line, column, path, phrase));
    }

    /** Matches an error at that place and field whose message contains {@code phrase}. */
    public static Consumer<SpecError> error(String file, int line, int column, String path, String phrase) {
        return e -> {
            assertThat(e.file()).as("file of %s", e).isEqualTo(file);
            assertThat(e.line()).as("line of %s", e).isEqualTo(line);
            assertThat(e.column()).as("column of %s", e).isEqualTo(column);
            assertThat(e.path()).as("path of %s", e).isEqualTo(path);
            assertThat(e.message()).as("message of %s", e).contains(phrase);
        };
    }
}
