package dev.nightshift.strategies.sim;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.sim.TimelineReplay.Limit;

/**
 * Test helper: writes a Cluster and one WorkerPool as YAML text, loads them with the real loader,
 * and resolves the pool's limits by the rules of examples/README.md, independently of the main code.
 */
final class PoolYaml {

    static final String CLUSTER = "demo";

    private final String name;
    private String role = "node";
    private String strategy = "AutoRollingUpdate";
    private Limit maxSurge;
    private Limit maxUnavailable;
    private Limit clusterMaxSurge;
    private Limit clusterMaxUnavailable;
    private int minReadySeconds;
    private String interval = "0s";
    private String onEvictionBlocked;
    private String imageVersion = "1631.0.0";

    private PoolYaml(String name) {
        this.name = name;
    }

    static PoolYaml pool(String name) {
        return new PoolYaml(name);
    }

    PoolYaml copy() {
        PoolYaml c = new PoolYaml(name);
        c.role = role;
        c.strategy = strategy;
        c.maxSurge = maxSurge;
        c.maxUnavailable = maxUnavailable;
        c.clusterMaxSurge = clusterMaxSurge;
        c.clusterMaxUnavailable = clusterMaxUnavailable;
        c.minReadySeconds = minReadySeconds;
        c.interval = interval;
        c.onEvictionBlocked = onEvictionBlocked;
        c.imageVersion = imageVersion;
        return c;
    }

    PoolYaml role(String v) {
        role = v;
        return this;
    }

    PoolYaml strategy(String v) {
        strategy = v;
        return this;
    }

    PoolYaml maxSurge(Limit v) {
        maxSurge = v;
        return this;
    }

    PoolYaml maxUnavailable(Limit v) {
        maxUnavailable = v;
        return this;
    }

    PoolYaml clusterDefaults(Limit surge, Limit unavailable) {
        clusterMaxSurge = surge;
        clusterMaxUnavailable = unavailable;
        return this;
    }

    PoolYaml minReadySeconds(int v) {
        minReadySeconds = v;
        return this;
    }

    PoolYaml interval(String v) {
        interval = v;
        return this;
    }

    PoolYaml onEvictionBlocked(String v) {
        onEvictionBlocked = v;
        return this;
    }

    PoolYaml imageVersion(String v) {
        imageVersion = v;
        return this;
    }

    String name() {
        return name;
    }

    String strategy() {
        return strategy;
    }

    String role() {
        return role;
    }

    int minReadySeconds() {
        return minReadySeconds;
    }

    boolean bastion() {
        return role.equals("bastion");
    }

    String clusterYaml() {
        StringBuilder b = new StringBuilder();
        b.append("apiVersion: nightshift.dev/v1alpha1\n");
        b.append("kind: Cluster\n");
        b.append("metadata: {name: ").append(CLUSTER).append("}\n");
        b.append("spec:\n");
        b.append("  kubernetes: {version: \"1.31.4\"}\n");
        if (clusterMaxSurge != null || clusterMaxUnavailable != null) {
            b.append("  rollingUpdate:\n");
            if (clusterMaxSurge != null) {
                b.append("    maxSurge: ").append(yaml(clusterMaxSurge)).append('\n');
            }
            if (clusterMaxUnavailable != null) {
                b.append("    maxUnavailable: ").append(yaml(clusterMaxUnavailable)).append('\n');
            }
        }
        b.append("  machineImages:\n");
        b.append("  - name: gardenlinux\n");
        b.append("    versions:\n");
        for (String v : new String[] {"1631.0.0", "1632.0.0", "1633.0.0"}) {
            b.append("    - {version: ").append(v).append(", inPlaceUpdates: {supported: true, minVersionForUpdate: 1630.0.0}}\n");
        }
        return b.toString();
    }

    String poolYaml() {
        StringBuilder b = new StringBuilder();
        b.append("apiVersion: nightshift.dev/v1alpha1\n");
        b.append("kind: WorkerPool\n");
        b.append("metadata: {name: ").append(name).append(", cluster: ").append(CLUSTER).append("}\n");
        b.append("spec:\n");
        b.append("  role: ").append(role).append('\n');
        b.append("  minimum: 1\n");
        b.append("  maximum: 100\n");
        if (maxSurge != null) {
            b.append("  maxSurge: ").append(yaml(maxSurge)).append('\n');
        }
        if (maxUnavailable != null) {
            b.append("  maxUnavailable: ").append(yaml(maxUnavailable)).append('\n');
        }
        b.append("  updateStrategy: ").append(strategy).append('\n');
        b.append("  machine: {type: m5.large, image: {name: gardenlinux, version: ").append(imageVersion).append("}}\n");
        b.append("  minReadySeconds: ").append(minReadySeconds).append('\n');
        b.append("  interval: ").append(interval).append('\n');
        if (onEvictionBlocked != null) {
            b.append("  machineControllerManager: {onEvictionBlocked: ").append(onEvictionBlocked).append("}\n");
        }
        return b.toString();
    }

    private static String yaml(Limit l) {
        return l.percent() ? "\"" + l.value() + "%\"" : Integer.toString(l.value());
    }

    LoadResult load() {
        Map<String, byte[]> files = new TreeMap<>();
        files.put("cluster.yaml", clusterYaml().getBytes(StandardCharsets.UTF_8));
        files.put("pools/" + name + ".yaml", poolYaml().getBytes(StandardCharsets.UTF_8));
        return new SpecLoader().load(files);
    }

    DesiredCluster desired() {
        LoadResult r = load();
        if (!r.valid()) {
            throw new AssertionError("the test's spec is invalid: " + r.errors() + "\n" + clusterYaml() + "---\n" + poolYaml());
        }
        return DesiredCluster.of(r.specs(), CLUSTER, 1);
    }

    /**
     * Pools that cannot surge (examples/README.md): control planes and ManualInPlaceUpdate. They take
     * neither the cluster's maxSurge nor a cluster maxUnavailable of 0.
     */
    private boolean canSurge() {
        return !role.equals("control-plane") && !strategy.equals("ManualInPlaceUpdate");
    }

    /** maxSurge as examples/README.md ("maxSurge / maxUnavailable defaults") resolves it, before applying the pool size. */
    Limit effectiveMaxSurge() {
        if (maxSurge != null) {
            return maxSurge;
        }
        if (canSurge() && clusterMaxSurge != null) {
            return clusterMaxSurge;
        }
        boolean surges = strategy.equals("AutoRollingUpdate") && (role.equals("node") || role.equals("apiserver"));
        return Limit.of(surges ? 1 : 0);
    }

    Limit effectiveMaxUnavailable() {
        if (maxUnavailable != null) {
            return maxUnavailable;
        }
        if (clusterMaxUnavailable != null && (canSurge() || clusterMaxUnavailable.value() != 0)) {
            return clusterMaxUnavailable;
        }
        return Limit.of(effectiveMaxSurge().value() > 0 ? 0 : 1);
    }

    /** The rules a replay checks this pool's timeline against; Replace states its downtime and is exempt. */
    TimelineReplay.Rules rules(int nodes) {
        return new TimelineReplay.Rules(name, nodes, effectiveMaxSurge(), effectiveMaxUnavailable(), minReadySeconds,
                strategy.equals("Replace"));
    }

    @Override
    public String toString() {
        return poolYaml().replace('\n', ' ') + (clusterMaxSurge != null || clusterMaxUnavailable != null
                ? " cluster.rollingUpdate: {maxSurge: " + clusterMaxSurge + ", maxUnavailable: " + clusterMaxUnavailable + "}" : "");
    }
}
