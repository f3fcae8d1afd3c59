package dev.nightshift.spec.diff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import dev.nightshift.spec.hash.HashInput;
import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.spec.model.ImageVersion;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.MachineControllerManager;
import dev.nightshift.spec.model.MachineImage;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.WorkerPoolSpec;

/**
 * Decides, for every pool, what a change from one spec to another means for its nodes, and why.
 * Pure: the same specs and history always give the same report.
 */
public final class SpecDiff {

    private final HashScheme rollHash;
    private final HashScheme kubeletHash;

    public SpecDiff() {
        this(HashScheme.ROLL, HashScheme.KUBELET);
    }

    public SpecDiff(HashScheme rollHash, HashScheme kubeletHash) {
        this.rollHash = rollHash;
        this.kubeletHash = kubeletHash;
    }

    public DiffReport diff(SpecSet oldSpecs, SpecSet newSpecs) {
        return diff(oldSpecs, newSpecs, InPlaceHistory.NONE);
    }

    public DiffReport diff(SpecSet oldSpecs, SpecSet newSpecs, InPlaceHistory history) {
        Map<String, ResolvedPool> before = resolve(oldSpecs);
        Map<String, ResolvedPool> after = resolve(newSpecs);
        TreeSet<String> keys = new TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<PoolDecision> decisions = new ArrayList<>();
        for (String key : keys) {
            ResolvedPool o = before.get(key);
            ResolvedPool n = after.get(key);
            if (o == null) {
                decisions.add(new PoolDecision(n.cluster().name(), n.name(), PoolAction.CREATE, Optional.empty(),
                        Optional.of(rollHash.compute(n)), Optional.empty(), Optional.of(kubeletHash.compute(n)),
                        List.of(), Optional.empty()));
            } else if (n == null) {
                decisions.add(new PoolDecision(o.cluster().name(), o.name(), PoolAction.DELETE,
                        Optional.of(rollHash.compute(o)), Optional.empty(), Optional.of(kubeletHash.compute(o)), Optional.empty(),
                        List.of(Reason.change(Effect.NONE, "metadata.name", o.name(), "")), Optional.empty()));
            } else {
                decisions.add(decide(o, n, history.of(n.cluster().name(), n.name())));
            }
        }
        return new DiffReport(decisions);
    }

    /** The decision for one pool present on both sides. */
    public PoolDecision decide(ResolvedPool o, ResolvedPool n, InPlaceHistory.Entry history) {
        List<Reason> reasons = new ArrayList<>();
        boolean inPlace = n.pool().updateStrategy().inPlace();
        Effect rollEffect = inPlace ? Effect.IN_PLACE : Effect.ROLL;
        List<Reason> rollReasons = changedInputs(rollHash.inputs(o), rollHash.inputs(n), rollEffect);
        reasons.addAll(rollReasons);
        reasons.addAll(changedInputs(kubeletHash.inputs(o), kubeletHash.inputs(n), Effect.KUBELET_RESTART));
        reasons.addAll(propagated(o.pool(), n.pool()));
        reasons.addAll(otherChanges(o, n));

        List<Reason> rejections = new ArrayList<>();
        rejectVersionChange(o.kubernetesVersion(), n.kubernetesVersion(), rejections);
        boolean wasInPlace = o.pool().updateStrategy().inPlace();
        if (wasInPlace != inPlace) {
            rejections.add(Reason.rejected("spec.updateStrategy", o.pool().updateStrategy().name(), n.pool().updateStrategy().name(),
                    "cannot switch between replacing nodes (AutoRollingUpdate, Replace) and updating them in place"
                            + " (AutoInPlaceUpdate, ManualInPlaceUpdate): create a new pool instead"));
        }
        Optional<String> forceToken = Optional.empty();
        if (inPlace && wasInPlace) {
            rejectInPlaceChanges(o, n, rejections);
            if (!rollReasons.isEmpty() && history.unfinished()) {
                Optional<String> token = n.pool().forceInPlaceToken().filter(t -> !history.usedForceTokens().contains(t));
                if (token.isPresent()) {
                    forceToken = token;
                } else {
                    rejections.add(Reason.rejected("metadata.annotations." + WorkerPoolSpec.FORCE_IN_PLACE_UPDATE, "",
                            n.pool().forceInPlaceToken().orElse(""),
                            "the previous in-place update of this pool is unfinished; set the annotation "
                                    + WorkerPoolSpec.FORCE_IN_PLACE_UPDATE + " to a token not used before to apply a new one anyway"));
                }
            }
        }
        reasons.addAll(0, rejections);
        return new PoolDecision(n.cluster().name(), n.name(), action(reasons),
                Optional.of(rollHash.compute(o)), Optional.of(rollHash.compute(n)),
                Optional.of(kubeletHash.compute(o)), Optional.of(kubeletHash.compute(n)),
                reasons, rejections.isEmpty() ? forceToken : Optional.empty());
    }

    private static PoolAction action(List<Reason> reasons) {
        Effect strongest = Effect.NONE;
        for (Reason r : reasons) {
            if (r.effect().ordinal() < strongest.ordinal()) {
                strongest = r.effect();
            }
        }
        return switch (strongest) {
            case REJECTED -> PoolAction.REJECTED;
            case ROLL -> PoolAction.ROLL;
            case IN_PLACE -> PoolAction.IN_PLACE;
            case KUBELET_RESTART -> PoolAction.KUBELET_RESTART;
            case PROPAGATE -> PoolAction.PROPAGATE;
            case NONE -> PoolAction.NONE;
        };
    }

    private static Map<String, ResolvedPool> resolve(SpecSet specs) {
        Map<String, ResolvedPool> pools = new LinkedHashMap<>();
        for (ClusterSpec cluster : specs.clusters()) {
            for (ResolvedPool p : specs.resolvedPools(cluster.name())) {
                pools.put(InPlaceHistory.key(cluster.name(), p.name()), p);
            }
        }
        return pools;
    }

    private static List<Reason> changedInputs(List<HashInput> before, List<HashInput> after, Effect effect) {
        List<Reason> reasons = new ArrayList<>();
        for (int i = 0; i < after.size(); i++) {
            HashInput o = before.get(i);
            HashInput n = after.get(i);
            if (!o.canonical().equals(n.canonical())) {
                reasons.add(Reason.change(effect, n.path(), o.display(), n.display()));
            }
        }
        return reasons;
    }

    private static List<Reason> propagated(WorkerPoolSpec o, WorkerPoolSpec n) {
        List<Reason> reasons = new ArrayList<>();
        mapChanges("spec.labels", o.labels(), n.labels(), Effect.PROPAGATE, reasons);
        mapChanges("metadata.annotations", o.nodeAnnotations(), n.nodeAnnotations(), Effect.PROPAGATE, reasons);
        // Control annotations instruct Nightshift and are never copied to the nodes: reported, not propagated.
        mapChanges("metadata.annotations", control(o.annotations()), control(n.annotations()), Effect.NONE, reasons);
        Map<String, String> oldTaints = taintsByKey(o.taints());
        Map<String, String> newTaints = taintsByKey(n.taints());
        mapChanges("spec.taints", oldTaints, newTaints, Effect.PROPAGATE, reasons);
        return reasons;
    }

    private static Map<String, String> control(Map<String, String> annotations) {
        Map<String, String> control = new TreeMap<>(annotations);
        control.keySet().removeIf(k -> !WorkerPoolSpec.controlAnnotation(k));
        return control;
    }

    private static Map<String, String> taintsByKey(List<Taint> taints) {
        Map<String, String> byKey = new TreeMap<>();
        for (Taint t : taints) {
            byKey.put(t.key() + ":" + t.effect(), t.toString());
        }
        return byKey;
    }

    private static void mapChanges(String path, Map<String, String> o, Map<String, String> n, Effect effect, List<Reason> reasons) {
        TreeSet<String> keys = new TreeSet<>(o.keySet());
        keys.addAll(n.keySet());
        for (String k : keys) {
            String before = o.getOrDefault(k, "");
            String after = n.getOrDefault(k, "");
            if (!before.equals(after) || o.containsKey(k) != n.containsKey(k)) {
                reasons.add(Reason.change(effect, path + "." + k, before, after));
            }
        }
    }

    /** Fields that change how Nightshift updates, not what the nodes run: reported, never acted on. */
    private static List<Reason> otherChanges(ResolvedPool o, ResolvedPool n) {
        List<Reason> reasons = new ArrayList<>();
        other(reasons, "spec.minimum", o, n, p -> p.pool().minimum());
        other(reasons, "spec.maximum", o, n, p -> p.pool().maximum());
        other(reasons, "spec.maxSurge", o, n, ResolvedPool::maxSurge);
        other(reasons, "spec.maxUnavailable", o, n, ResolvedPool::maxUnavailable);
        if (o.pool().updateStrategy().inPlace() == n.pool().updateStrategy().inPlace()) {
            other(reasons, "spec.updateStrategy", o, n, p -> p.pool().updateStrategy());
        }
        other(reasons, "spec.role", o, n, p -> p.pool().role());
        other(reasons, "spec.minReadySeconds", o, n, p -> p.pool().minReadySeconds());
        other(reasons, "spec.progressDeadlineSeconds", o, n, p -> p.progressDeadline().getSeconds());
        other(reasons, "spec.interval", o, n, p -> DurationText.format(p.pool().interval()));
        other(reasons, "spec.drainAndTerminate", o, n, p -> p.pool().drainAndTerminate());
        String mcm = "spec.machineControllerManager.";
        other(reasons, mcm + "drainTimeout", o, n, p -> DurationText.format(mcm(p).drainTimeout()));
        other(reasons, mcm + "healthTimeout", o, n, p -> DurationText.format(mcm(p).healthTimeout()));
        other(reasons, mcm + "creationTimeout", o, n, p -> DurationText.format(mcm(p).creationTimeout()));
        other(reasons, mcm + "maxEvictRetries", o, n, p -> mcm(p).maxEvictRetries());
        other(reasons, mcm + "inPlaceUpdateTimeout", o, n, p -> DurationText.format(mcm(p).inPlaceUpdateTimeout()));
        other(reasons, mcm + "onEvictionBlocked", o, n, p -> mcm(p).onEvictionBlocked());
        other(reasons, mcm + "nodeConditions", o, n, p -> mcm(p).nodeConditions());
        other(reasons, mcm + "disableHealthTimeout", o, n, ResolvedPool::disableHealthTimeout);
        // How the change is rolled out, resolved (the pool's fields, else the cluster's): never in a hash.
        String rollout = "spec.rollout.";
        other(reasons, rollout + "waves", o, n, p -> p.rollout().waves());
        other(reasons, rollout + "soak", o, n, p -> DurationText.format(p.rollout().soak()));
        other(reasons, rollout + "healthChecks", o, n, p -> p.rollout().healthChecks().stream().map(SpecDiff::describe).toList());
        other(reasons, rollout + "onFailure", o, n, p -> p.rollout().onFailure());
        other(reasons, rollout + "maxFailedMachines", o, n, p -> p.rollout().maxFailedMachines());
        other(reasons, rollout + "revisionHistoryLimit", o, n, p -> p.rollout().revisionHistoryLimit());
        // When the pool may start among the others: the fleet's order, nothing on the nodes.
        other(reasons, rollout + "after", o, n, p -> p.pool().after());
        return reasons;
    }

    /** A check as one line, for a reason's old and new values. */
    static String describe(HealthCheck check) {
        if (check instanceof HealthCheck.Prometheus p) {
            return p.name() + ": prometheus " + p.query()
                    + p.min().map(v -> " >= " + v.toPlainString()).orElse("") + p.max().map(v -> " <= " + v.toPlainString()).orElse("");
        }
        return check.name() + ": workloadsAvailable within " + DurationText.format(((HealthCheck.WorkloadsAvailable) check).within());
    }

    private static MachineControllerManager mcm(ResolvedPool p) {
        return p.pool().machineControllerManager();
    }

    private static void other(List<Reason> reasons, String path, ResolvedPool o, ResolvedPool n, Function<ResolvedPool, Object> field) {
        Object before = field.apply(o);
        Object after = field.apply(n);
        if (!Objects.equals(before, after)) {
            reasons.add(Reason.change(Effect.NONE, path, String.valueOf(before), String.valueOf(after)));
        }
    }

    private static void rejectVersionChange(KubernetesVersion o, KubernetesVersion n, List<Reason> rejections) {
        String path = "spec.kubernetes.version";
        if (n.compareTo(o) < 0) {
            rejections.add(Reason.rejected(path, o.toString(), n.toString(), "Kubernetes cannot be downgraded"));
        } else if (n.major() != o.major()) {
            rejections.add(Reason.rejected(path, o.toString(), n.toString(), "a major version change is not supported"));
        } else if (n.minorsAbove(o) > 1) {
            rejections.add(Reason.rejected(path, o.toString(), n.toString(),
                    "Kubernetes upgrades one minor at a time: go to " + o.major() + "." + (o.minor() + 1) + " first"));
        }
    }

    private static void rejectInPlaceChanges(ResolvedPool o, ResolvedPool n, List<Reason> rejections) {
        WorkerPoolSpec op = o.pool();
        WorkerPoolSpec np = n.pool();
        String why = "cannot be changed with an in-place update strategy: the machine would have to be replaced";
        rejectIfChanged(rejections, "spec.machine.image.name", op.machine().image().name(), np.machine().image().name(), why);
        rejectIfChanged(rejections, "spec.machine.type", op.machine().type(), np.machine().type(), why);
        rejectIfChanged(rejections, "spec.volume.type", op.volume().map(v -> v.type()).orElse(""), np.volume().map(v -> v.type()).orElse(""), why);
        if (!Objects.equals(op.volume().map(v -> v.size()), np.volume().map(v -> v.size()))) {
            rejections.add(Reason.rejected("spec.volume.size", op.volume().map(v -> v.size().text()).orElse(""),
                    np.volume().map(v -> v.size().text()).orElse(""), why));
        }
        rejectIfChanged(rejections, "spec.cri.name", op.criName(), np.criName(), why);
        rejectIfChanged(rejections, "cluster.spec.systemComponents.nodeLocalDNS.enabled",
                Boolean.toString(o.cluster().nodeLocalDns()), Boolean.toString(n.cluster().nodeLocalDns()), why);

        ImageVersion from = op.machine().image().version();
        ImageVersion to = np.machine().image().version();
        String imageName = np.machine().image().name();
        if (from.compareTo(to) != 0 && imageName.equals(op.machine().image().name())) {
            String path = "spec.machine.image.version";
            Optional<MachineImage.Version> entry = n.cluster().machineImage(imageName).flatMap(i -> i.find(to));
            if (entry.isEmpty()) {
                rejections.add(Reason.rejected(path, from.text(), to.text(), "version " + to + " of image " + imageName
                        + " is not in the cluster's machineImages catalog, so it is not known to support in-place updates"));
            } else if (!entry.get().inPlaceSupported()) {
                rejections.add(Reason.rejected(path, from.text(), to.text(), "version " + to + " of image " + imageName
                        + " is not marked inPlaceUpdates.supported"));
            } else if (entry.get().minVersionForUpdate().filter(min -> from.compareTo(min) < 0).isPresent()) {
                rejections.add(Reason.rejected(path, from.text(), to.text(), "version " + to + " can be reached in place only from "
                        + entry.get().minVersionForUpdate().get() + " or later"));
            }
        }
    }

    private static void rejectIfChanged(List<Reason> rejections, String path, String o, String n, String why) {
        if (!o.equals(n)) {
            rejections.add(Reason.rejected(path, o, n, why));
        }
    }
}
