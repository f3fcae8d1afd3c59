package dev.nightshift.sandbox.capi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What upstream's MachineDeployment controller decides for an {@code OnDelete} MachineDeployment in one reconcile:
 * which MachineSet is the current one (or that one must be created) and the {@code spec.replicas} each MachineSet
 * should have. Pure, so that upstream's golden rollout sequences replay against it without timing.
 *
 * <p>Follows, step by step:
 * <ul>
 * <li>{@code core/reconcilers/machinedeployment/mdutil/util.go} {@code FindNewAndOldMachineSets}: the up-to-date
 *     MachineSets sorted by decreasing {@code spec.replicas}, then age, then name ({@code MachineSetsByDecreasingReplicas});
 *     the first is the current one, every other one is old;</li>
 * <li>{@code machinedeployment_rollout_planner.go} {@code init}: without a current one, a new MachineSet with 0
 *     replicas is created and planned in the same reconcile;</li>
 * <li>{@code machinedeployment_rollout_rollingupdate.go} {@code reconcileNewMachineSet} with {@code mdutil.NewMSNewReplicas}
 *     (OnDelete case): the current MachineSet is scaled down to the MachineDeployment's replicas if above, else up by
 *     {@code md.spec.replicas - sum(spec.replicas of all MachineSets)} when positive;</li>
 * <li>{@code machinedeployment_rollout_ondelete.go} {@code reconcileOldMachineSetsOnDelete}: old MachineSets, oldest
 *     first, first drop the {@code spec.replicas} without a Machine ({@code spec.replicas - status.replicas}, i.e.
 *     Machines deleted by someone else, once they are gone), then the rest of the excess over
 *     {@code md.spec.replicas} is taken from the oldest old MachineSets first. Upstream's second loop computes the new
 *     intent from {@code spec.replicas}, not from the first loop's intent; this does the same.</li>
 * </ul>
 * Old MachineSets of an OnDelete MachineDeployment get {@code cluster.x-k8s.io/disable-machine-create: "true"}
 * ({@code computeDesiredOldMS}); that is the caller's to write.
 */
public final class OnDeleteRollout {

    private OnDeleteRollout() {
    }

    /**
     * One MachineSet of the MachineDeployment, as the MachineDeployment controller reads it.
     *
     * @param creationOrder  smaller is older (upstream: {@code creationTimestamp}, ties broken by name)
     * @param specReplicas   {@code spec.replicas}
     * @param statusReplicas {@code status.replicas}: the Machines the MachineSet controller last counted, Machines
     *                       being deleted included
     * @param upToDate       whether its machine template matches the MachineDeployment's ({@link MachineTemplates#upToDate})
     */
    public record MachineSetReplicas(String name, long creationOrder, int specReplicas, int statusReplicas, boolean upToDate) {
        public MachineSetReplicas {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * The outcome of one reconcile.
     *
     * @param current  the current MachineSet's name
     * @param create   whether {@code current} does not exist yet and is to be created (with {@code replicas.get(current)})
     * @param old      the old MachineSets' names, oldest first
     * @param replicas the new {@code spec.replicas} of every MachineSet whose value changes (the created one always)
     */
    public record Plan(String current, boolean create, List<String> old, Map<String, Integer> replicas) {
        public Plan {
            old = List.copyOf(old);
            replicas = Map.copyOf(replicas);
        }

        /** The {@code spec.replicas} {@code machineSet} ends with, given the value it had. */
        public int replicasOf(String machineSet, int before) {
            return replicas.getOrDefault(machineSet, before);
        }
    }

    private static final Comparator<MachineSetReplicas> BY_AGE =
            Comparator.comparingLong(MachineSetReplicas::creationOrder).thenComparing(MachineSetReplicas::name);

    /**
     * @param mdReplicas the MachineDeployment's {@code spec.replicas}
     * @param sets       its MachineSets, in any order
     * @param newName    the name a MachineSet created now would get
     */
    public static Plan plan(int mdReplicas, List<MachineSetReplicas> sets, String newName) {
        List<MachineSetReplicas> candidates = sets.stream().filter(MachineSetReplicas::upToDate)
                .sorted(Comparator.comparingInt(MachineSetReplicas::specReplicas).reversed().thenComparing(BY_AGE))
                .toList();
        Optional<MachineSetReplicas> existing = candidates.stream().findFirst();
        MachineSetReplicas current = existing.orElseGet(() -> new MachineSetReplicas(newName, Long.MAX_VALUE, 0, 0, true));
        List<MachineSetReplicas> old = sets.stream().filter(s -> !s.name().equals(current.name())).sorted(BY_AGE).toList();

        Map<String, Integer> intents = new LinkedHashMap<>();
        if (existing.isEmpty()) {
            intents.put(current.name(), 0);
        }
        // reconcileNewMachineSet
        int newReplicas = current.specReplicas();
        if (newReplicas > mdReplicas) {
            intents.put(current.name(), mdReplicas);
        } else if (newReplicas < mdReplicas) {
            int all = current.specReplicas() + old.stream().mapToInt(MachineSetReplicas::specReplicas).sum();
            if (all < mdReplicas) {
                intents.put(current.name(), newReplicas + mdReplicas - all);
            }
        }
        // reconcileOldMachineSetsOnDelete
        int oldMachines = old.stream().mapToInt(MachineSetReplicas::specReplicas).sum();
        if (oldMachines > 0) {
            int total = oldMachines + intents.getOrDefault(current.name(), current.specReplicas());
            int toScaleDown = Math.max(total - mdReplicas, 0);
            for (MachineSetReplicas set : old) {
                if (set.specReplicas() <= 0) {
                    continue;
                }
                int withoutMachine = Math.max(set.specReplicas() - set.statusReplicas(), 0);
                if (withoutMachine > 0) {
                    intents.put(set.name(), Math.max(set.specReplicas() - withoutMachine, 0));
                    toScaleDown -= withoutMachine;
                }
            }
            for (MachineSetReplicas set : old) {
                if (toScaleDown <= 0) {
                    break;
                }
                int intent = intents.getOrDefault(set.name(), set.specReplicas());
                if (intent <= 0) {
                    continue;
                }
                int count = Math.min(intent, toScaleDown);
                intents.put(set.name(), Math.max(set.specReplicas() - count, 0));
                toScaleDown -= count;
            }
        }
        Map<String, Integer> changed = new LinkedHashMap<>();
        intents.forEach((name, value) -> {
            int before = sets.stream().filter(s -> s.name().equals(name)).mapToInt(MachineSetReplicas::specReplicas).findFirst().orElse(-1);
            if (before != value) {
                changed.put(name, value);
            }
        });
        List<String> oldNames = new ArrayList<>();
        old.forEach(s -> oldNames.add(s.name()));
        return new Plan(current.name(), existing.isEmpty(), oldNames, changed);
    }
}
