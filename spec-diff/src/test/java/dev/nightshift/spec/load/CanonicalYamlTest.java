package dev.nightshift.spec.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.RandomSpecs;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.spec.model.WorkerPoolSpec;

/**
 * The canonical form is exact: over the seeded random specs (every field, every spelling), what it
 * writes loads back to an equal model, and writing that again gives the same text.
 */
class CanonicalYamlTest {

    private static final int SEEDS = 500;

    @Test
    void everyRandomSpecWrittenCanonicallyLoadsBackToAnEqualModelAndTheSameText() {
        List<String> failures = new ArrayList<>();
        for (long seed = 0; seed < SEEDS; seed++) {
            RandomSpecs.Spec random = RandomSpecs.generate(seed);
            LoadResult loaded = new SpecLoader().load(random.files(new Random(seed)));
            assertThat(loaded.errors()).as("seed %d loads", seed).isEmpty();
            ClusterSpec cluster = loaded.specs().clusters().get(0);
            WorkerPoolSpec pool = loaded.specs().pools().get(0);

            String clusterText = CanonicalYaml.cluster(cluster);
            String poolText = CanonicalYaml.pool(pool);
            LoadResult back = CanonicalYaml.read(clusterText, poolText);

            if (!back.valid()) {
                failures.add("seed " + seed + ": " + back.errors() + "\n" + clusterText + "---\n" + poolText);
            } else if (!back.specs().equals(new SpecSet(List.of(cluster), List.of(pool)))) {
                failures.add("seed " + seed + ": loads back as " + back.specs() + "\nnot " + loaded.specs() + "\n" + clusterText
                        + "---\n" + poolText);
            } else if (!CanonicalYaml.cluster(back.specs().clusters().get(0)).equals(clusterText)
                    || !CanonicalYaml.pool(back.specs().pools().get(0)).equals(poolText)) {
                failures.add("seed " + seed + ": written again, the text differs");
            }
        }
        assertThat(failures).as("specs whose canonical form is not exact").isEmpty();
    }

    @Test
    void defaultsAreWrittenOutAndStringsAreQuotedAndEscaped() {
        LoadResult loaded = new SpecLoader().load(java.util.Map.of("all.yaml", """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: prod}
                spec:
                  kubernetes: {version: "1.31.4"}
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: prod, annotations: {note: "caf\\u00e9 \\"quoted\\"\\nnext"}}
                spec:
                  minimum: 1
                  maximum: 3
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                  labels: {"example.com/tier": "no"}
                """.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();

        String pool = CanonicalYaml.pool(loaded.specs().pools().get(0));

        assertThat(pool).contains("  updateStrategy: \"AutoRollingUpdate\"\n", "  interval: \"15s\"\n", "  drainAndTerminate: true\n",
                "    maxEvictRetries: 10\n", "  labels: {\"example.com/tier\": \"no\"}\n",
                "annotations: {\"note\": \"caf\\u00e9 \\\"quoted\\\"\\u000anext\"}");
        assertThat(CanonicalYaml.read(CanonicalYaml.cluster(loaded.specs().clusters().get(0)), pool).specs()).isEqualTo(loaded.specs());
    }
}
