package dev.nightshift.sandbox.embedded;

import java.util.List;
import java.util.Set;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

/**
 * The arithmetic of Kubernetes' disruption controller, done on demand at eviction time because no controller
 * runs here to keep the budgets' status up to date.
 *
 * <p><b>Healthy pod</b> (stands in for the controller's "Ready"): not being deleted (no
 * {@code metadata.deletionTimestamp}), {@code status.phase} {@code Running}, and no {@code Ready} condition that is
 * {@code False}. A pod that carries no conditions at all counts as healthy, so that tests and the demo only have to
 * set the phase; one explicitly marked not Ready does not.
 *
 * <p><b>Budget</b>: the selected pods are those of the budget's namespace that its selector matches.
 * {@code minAvailable} n: expected = the selected pods, desired healthy = n. With a percentage or
 * {@code maxUnavailable}, expected = the scale of the pods' controllers, as the real controller computes it: the
 * {@code spec.replicas} of each ReplicaSet or StatefulSet that controls selected pods and is in the store, plus one
 * for every other selected pod (the real controller refuses pods without a scalable controller; here they simply
 * count as themselves, so without controllers each eviction shrinks the expected count).
 * {@code minAvailable} p%: desired healthy = ceil(p × expected / 100). {@code maxUnavailable} n or p% (rounded up
 * the same way): desired healthy = max(0, expected − n). Disruptions allowed = current healthy − desired healthy,
 * and 0 when that is negative or nothing is expected (so a budget with neither field blocks every eviction of a
 * healthy pod, as the real one does).
 */
final class DisruptionBudgets {

    /** Phases in which the API server evicts without consulting a budget: the pod is not serving anyway. */
    private static final Set<String> BUDGET_EXEMPT_PHASES = Set.of("Pending", "Succeeded", "Failed");

    private DisruptionBudgets() {
    }

    /** What the disruption controller would have written into {@code pdb}'s status, given the pods it selects. */
    record BudgetStatus(String name, int expectedPods, int desiredHealthy, int currentHealthy, int disruptionsAllowed) {
    }

    /**
     * @param selected        the pods the budget's selector matches
     * @param controllerScale the expected count from the pods' controllers (see the class comment)
     */
    static BudgetStatus status(PodDisruptionBudget pdb, List<Pod> selected, int controllerScale) {
        int healthy = (int) selected.stream().filter(DisruptionBudgets::healthy).count();
        IntOrString minAvailable = pdb.getSpec().getMinAvailable();
        IntOrString maxUnavailable = pdb.getSpec().getMaxUnavailable();
        int expected;
        int desired;
        if (maxUnavailable != null) {
            expected = controllerScale;
            desired = Math.max(0, expected - scaled(maxUnavailable, expected));
        } else if (minAvailable != null && minAvailable.getIntVal() != null) {
            expected = selected.size();
            desired = minAvailable.getIntVal();
        } else if (minAvailable != null) {
            expected = controllerScale;
            desired = scaled(minAvailable, expected);
        } else {
            // Neither is set: policy/v1 neither defaults nor refuses this, and the real controller then expects no
            // pods, which allows no disruption at all (fail-closed).
            expected = 0;
            desired = 0;
        }
        int allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
        return new BudgetStatus(pdb.getMetadata().getName(), expected, desired, healthy, allowed);
    }

    /** See the class comment. */
    static boolean healthy(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null || pod.getStatus() == null) {
            return false;
        }
        if (!"Running".equals(pod.getStatus().getPhase())) {
            return false;
        }
        List<PodCondition> conditions = pod.getStatus().getConditions() == null ? List.of() : pod.getStatus().getConditions();
        return conditions.stream().noneMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()));
    }

    /**
     * Whether the API server evicts {@code pod} without looking at budgets: it is being deleted already, or it is not
     * running (Pending, Succeeded, Failed; a pod without a phase is one the API server would have made Pending).
     */
    static boolean exempt(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return true;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return phase == null || BUDGET_EXEMPT_PHASES.contains(phase);
    }

    /** An int, or a percentage of {@code total} rounded up (as {@code intstr.GetScaledValueFromIntOrPercent(…, true)}). */
    static int scaled(IntOrString value, int total) {
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String text = value.getStrVal();
        if (text == null || !text.endsWith("%")) {
            throw new IllegalArgumentException("invalid value for IntOrString: " + text + " is not an int or a percentage");
        }
        int percent;
        try {
            percent = Integer.parseInt(text.substring(0, text.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value for IntOrString: " + text + " is not a percentage", e);
        }
        return (int) Math.ceil(percent * (double) total / 100.0);
    }
}
