package dev.nightshift.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The crash tests' spec directory: a cluster whose window is always open, with the images given, and one pool. */
final class CrashSpecs {

    private CrashSpecs() {
    }

    /** Writes {@code cluster.yaml} under {@code dir} (and makes {@code pools/}): the window always open, the images given. */
    static void cluster(Path dir, String cluster, String... images) throws IOException {
        Files.createDirectories(dir.resolve("pools"));
        String versions = Arrays.stream(images).map(v -> "    - {version: " + v + "}\n").collect(Collectors.joining());
        Files.writeString(dir.resolve("cluster.yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: %s}
                spec:
                  kubernetes:
                    version: "1.31.4"
                  maintenance:
                    # an hour-long window every hour: always open
                    windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
                  machineImages:
                  - name: gardenlinux
                    versions:
                """.formatted(cluster) + versions, StandardCharsets.UTF_8);
    }

    /**
     * Writes {@code cluster.yaml} and {@code pools/<pool>.yaml} under {@code dir}: the pool of {@code count} nodes at
     * {@code image}, its limits as YAML values ({@code 3}, {@code "25%"}); returns {@code dir}.
     */
    static Path onePool(Path dir, String cluster, String pool, int count, String maxSurge, String maxUnavailable, String image,
                        String... images) throws IOException {
        cluster(dir, cluster, images);
        Files.writeString(dir.resolve("pools/" + pool + ".yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: %s}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: %s
                  maxUnavailable: %s
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(pool, cluster, count, count, maxSurge, maxUnavailable, image), StandardCharsets.UTF_8);
        return dir;
    }
}
