package dev.nightshift.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredCluster;

/** Desired clusters for tests that need the planner's view of a spec. */
public final class TestClusters {

    private TestClusters() {
    }

    /** The pool fields {@link #oneWebPool()} gives pool web: 1 to 3 nodes at image 1631.0.0. */
    public static final String WEB = """
            minimum: 1
            maximum: 3
            machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    /** Cluster {@code c} with one pool {@code web} of 1 to 3 nodes at image 1631.0.0, every other field defaulted. */
    public static DesiredCluster oneWebPool() {
        return clusterWith(pool("web", WEB));
    }

    /** Cluster {@code c} (Kubernetes 1.31.4, every other field defaulted) with these WorkerPool documents ({@link #pool}). */
    public static DesiredCluster clusterWith(String... pools) {
        StringBuilder yaml = new StringBuilder("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                """);
        for (String pool : pools) {
            yaml.append("---\n").append(pool);
        }
        return load(yaml.toString());
    }

    /** The WorkerPool document of pool {@code name} of cluster {@code c}, with {@code spec} (YAML lines) as its spec. */
    public static String pool(String name, String spec) {
        return "apiVersion: nightshift.dev/v1alpha1\nkind: WorkerPool\nmetadata: {name: " + name + ", cluster: c}\nspec:\n"
                + spec.indent(2);
    }

    /** The desired state of cluster {@code c} in these specs, which must load without error. */
    public static DesiredCluster load(String yaml) {
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).as("fixture spec").isEmpty();
        return DesiredCluster.of(loaded.specs(), "c", 1);
    }
}
