package dev.nightshift.cli;

import java.util.ArrayList;
import java.util.List;

import dev.nightshift.agent.provider.Machine;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * kops' preview of {@code rolling-update cluster} without {@code --yes}: one row per selected pool, with kops' columns
 * NAME, STATUS, NEEDUPDATE, READY, MIN, TARGET, MAX, NODES. STATUS is {@code NeedsUpdate} when a machine is to be updated
 * (with {@code --force}, every machine), else {@code Ready}; READY counts the machines at the desired spec; TARGET is the
 * pool's machines now (kops: the group's desired size); NODES the registered nodes. Pure: tested without a cluster.
 */
final class RollingPreview {

    /** One pool's row. */
    record Row(String name, PoolRole role, int needUpdate, int ready, int min, int target, int max, int nodes) {

        String status() {
            return needUpdate > 0 ? "NeedsUpdate" : "Ready";
        }
    }

    private RollingPreview() {
    }

    /**
     * A row from the cluster's nodes (and machines that did not register) as the agent observes them; NODES also counts
     * the machines the provider knows the node of (a node the agent has not labelled with its pool yet, which a preview,
     * writing nothing, does not do).
     */
    static Row observed(DesiredPool pool, List<ObservedNode> nodes, List<Machine> machines, boolean force) {
        int outdated = (int) nodes.stream().filter(n -> force || pool.outdated(n)).count();
        int current = (int) nodes.stream().filter(n -> !pool.outdated(n) && n.rollHash().isPresent()).count();
        int registered = (int) Math.max(nodes.stream().filter(ObservedNode::registered).count(),
                machines.stream().filter(m -> !m.deleting() && m.node().isPresent()).count());
        ResolvedPool spec = pool.spec();
        return new Row(pool.name(), spec.pool().role(), outdated, current, spec.pool().minimum(), nodes.size(), spec.pool().maximum(),
                registered);
    }

    /** A row from the provider's machines only ({@code --cloudonly}: no Kubernetes API). */
    static Row machines(DesiredPool pool, List<Machine> machines, boolean force) {
        List<Machine> live = machines.stream().filter(m -> !m.deleting()).toList();
        int outdated = (int) live.stream().filter(m -> force || !CloudOnlyUpdate.current(pool, m)).count();
        int current = (int) live.stream().filter(m -> CloudOnlyUpdate.current(pool, m)).count();
        int nodes = (int) live.stream().filter(m -> m.node().isPresent()).count();
        ResolvedPool spec = pool.spec();
        return new Row(pool.name(), spec.pool().role(), outdated, current, spec.pool().minimum(), live.size(), spec.pool().maximum(),
                nodes);
    }

    /** The table as kops prints it: columns left-aligned, two spaces apart. */
    static String table(List<Row> rows) {
        List<String[]> lines = new ArrayList<>();
        lines.add(new String[] {"NAME", "STATUS", "NEEDUPDATE", "READY", "MIN", "TARGET", "MAX", "NODES"});
        rows.forEach(r -> lines.add(new String[] {r.name(), r.status(), String.valueOf(r.needUpdate()), String.valueOf(r.ready()),
                String.valueOf(r.min()), String.valueOf(r.target()), String.valueOf(r.max()), String.valueOf(r.nodes())}));
        int[] widths = new int[8];
        lines.forEach(l -> {
            for (int i = 0; i < l.length; i++) {
                widths[i] = Math.max(widths[i], l[i].length());
            }
        });
        StringBuilder out = new StringBuilder();
        for (String[] l : lines) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < l.length; i++) {
                line.append(i == l.length - 1 ? l[i] : String.format("%-" + (widths[i] + 2) + "s", l[i]));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    /** kops' closing line of a preview. */
    static String footer(List<Row> rows) {
        return rows.stream().anyMatch(r -> r.needUpdate() > 0) ? "\nMust specify --yes to rolling-update.\n"
                : "\nNo rolling-update required.\n";
    }
}
