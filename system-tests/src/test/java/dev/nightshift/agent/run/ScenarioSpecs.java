package dev.nightshift.agent.run;

import java.util.ArrayList;
import java.util.List;

/**
 * The specs the scenarios push, as a user writes them: cluster {@code e2e} and a pool of it. One copy of the YAML
 * every scenario starts from, so that a test shows only what it changes (an image, a limit, a label).
 */
final class ScenarioSpecs {

    /** Cluster {@code e2e} at Kubernetes 1.31.4, with no maintenance window. */
    static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    /**
     * The same cluster with a window of an hour opening every hour: always open, so nothing waits for it, and yet
     * the agent plans inside a maintenance window.
     */
    static final String CLUSTER_IN_HOURLY_WINDOWS = CLUSTER + """
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
            """;

    private ScenarioSpecs() {
    }

    /** Pool {@code web}: 3 to 6 machines of image 1631.0.0, how it rolls left to the defaults. */
    static Pool web() {
        return new Pool("web", List.of(new Field("minimum", "3"), new Field("maximum", "6")), "1631.0.0");
    }

    /** {@code cluster} and {@code pool} in one file, as a repository with a single {@code all.yaml} holds them. */
    static String oneFile(String cluster, Pool pool) {
        return cluster + "---\n" + pool.yaml();
    }

    /** One line of a pool's {@code spec}: {@code key: value}, the value as YAML. */
    record Field(String key, String value) {
    }

    /**
     * A WorkerPool of cluster {@code e2e}: its {@code spec} fields in the order written, then the machine. Each
     * {@code with…} method is a copy with one thing changed; a field keeps its line, so an error's line and column in
     * a test's expectation stay put.
     */
    record Pool(String name, List<Field> fields, String image) {

        Pool {
            fields = List.copyOf(fields);
        }

        /** Rolled by surge, one node at a time and with no pause: maxSurge 1, maxUnavailable 0, interval 0s. */
        Pool surgingOneAtATime() {
            return with("maxSurge", "1").with("maxUnavailable", "0").with("interval", "0s");
        }

        /** With {@code key: value} in the spec: in place of the field's line if it is there, else after the others. */
        Pool with(String key, String value) {
            List<Field> changed = new ArrayList<>(fields);
            Field field = new Field(key, value);
            int at = fields.stream().map(Field::key).toList().indexOf(key);
            if (at < 0) {
                changed.add(field);
            } else {
                changed.set(at, field);
            }
            return new Pool(name, changed, image);
        }

        /** At machine image {@code version} of gardenlinux. */
        Pool withImage(String version) {
            return new Pool(name, fields, version);
        }

        /** Where a repository keeps it: {@code pools/<name>.yaml}. */
        String file() {
            return "pools/" + name + ".yaml";
        }

        String yaml() {
            StringBuilder yaml = new StringBuilder("""
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: e2e}
                    spec:
                    """.formatted(name));
            fields.forEach(f -> yaml.append("  ").append(f.key()).append(": ").append(f.value()).append('\n'));
            return yaml.append("  machine: {type: m5.large, image: {name: gardenlinux, version: ").append(image).append("}}\n")
                    .toString();
        }
    }
}
