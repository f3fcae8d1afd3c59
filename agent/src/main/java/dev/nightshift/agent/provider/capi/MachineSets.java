package dev.nightshift.agent.provider.capi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * A MachineDeployment's MachineSets as its controller orders them for an OnDelete rollout
 * ({@code mdutil/util.go} {@code FindNewAndOldMachineSets}, {@code machinedeployment_rollout_ondelete.go}):
 * the <em>current</em> one is the MachineSet whose template matches the MachineDeployment's (the
 * one new Machines go to; with several, the one with most replicas, then the oldest); every other
 * one is old. Lowering {@code spec.replicas} shrinks the old ones first, oldest first
 * (creationTimestamp, then name), and the current one only when no old one has replicas. After a
 * roll back the current MachineSet is older than an old one, so age alone does not give the order.
 *
 * @param inRemovalOrder the old MachineSets oldest first, then the current one
 * @param current        the current MachineSet's name; empty until Cluster API created it
 */
record MachineSets(List<GenericKubernetesResource> inRemovalOrder, Optional<String> current) {

    /** Only these fields of the template make a new MachineSet ({@code MachineTemplateUpToDate}). */
    private static final List<String> ROLLOUT_FIELDS = List.of("version", "bootstrap", "infrastructureRef", "failureDomain");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Comparator<GenericKubernetesResource> BY_AGE =
            Comparator.comparing((GenericKubernetesResource ms) -> String.valueOf(ms.getMetadata().getCreationTimestamp()))
                    .thenComparing(ms -> ms.getMetadata().getName());

    MachineSets {
        inRemovalOrder = List.copyOf(inRemovalOrder);
    }

    static MachineSets of(GenericKubernetesResource md, Collection<GenericKubernetesResource> sets) {
        JsonNode template = templateSpec(md);
        List<GenericKubernetesResource> byAge = sets.stream().sorted(BY_AGE).toList();
        Optional<GenericKubernetesResource> current = byAge.stream().filter(ms -> upToDate(templateSpec(ms), template))
                .sorted(Comparator.comparingInt(MachineSets::replicas).reversed().thenComparing(BY_AGE)).findFirst();
        List<GenericKubernetesResource> order = new ArrayList<>(byAge);
        current.ifPresent(c -> {
            order.remove(c);
            order.add(c);
        });
        return new MachineSets(order, current.map(c -> c.getMetadata().getName()));
    }

    /** The MachineSet a lower {@code spec.replicas} takes a Machine from: the first in removal order that has replicas. */
    Optional<GenericKubernetesResource> shrinksFirst() {
        return inRemovalOrder.stream().filter(ms -> replicas(ms) > 0).findFirst();
    }

    /**
     * Why lowering the MachineDeployment's replicas now would not remove the Machine marked for it, or empty when it
     * would: Cluster API is still moving replicas, a Machine deleted by itself not yet taken off its MachineSet's
     * replicas (its MachineSet has fewer Machines than replicas), or that taken-off replica not yet given to the current
     * MachineSet (the MachineSets' replicas add up to less than the MachineDeployment's). Lowered then, the controller
     * would count the lowered replica as the missing one, or not create the owed one, and the marked Machine would stay.
     */
    Optional<String> movingReplicas(int deploymentReplicas, List<GenericKubernetesResource> machines, String setLabel) {
        int total = 0;
        for (GenericKubernetesResource ms : inRemovalOrder) {
            String name = ms.getMetadata().getName();
            long held = held(ms, machines, setLabel);
            if (held < replicas(ms)) {
                return Optional.of("MachineSet " + name + " has " + held + " Machines for " + replicas(ms) + " replicas");
            }
            total += replicas(ms);
        }
        if (total < deploymentReplicas) {
            return Optional.of("the MachineSets have " + total + " of the MachineDeployment's " + deploymentReplicas + " replicas");
        }
        return Optional.empty();
    }

    /**
     * The Machines Cluster API is to create now: for each MachineSet, its replicas beyond the Machines it has (being
     * deleted included, as {@link #movingReplicas} counts them). Seen before the Machines are (another watch), they
     * exist already for what {@code count + maxSurge} bounds.
     */
    long pendingCreations(List<GenericKubernetesResource> machines, String setLabel) {
        return inRemovalOrder.stream().mapToLong(ms -> Math.max(0, replicas(ms) - held(ms, machines, setLabel))).sum();
    }

    /**
     * Whether Cluster API has nothing to do: every MachineSet has exactly as many Machines (being deleted included) as
     * {@code spec.replicas}, and they add up to the MachineDeployment's {@code deploymentReplicas}.
     */
    boolean atRest(int deploymentReplicas, List<GenericKubernetesResource> machines, String setLabel) {
        return inRemovalOrder.stream().allMatch(ms -> held(ms, machines, setLabel) == replicas(ms))
                && inRemovalOrder.stream().mapToInt(MachineSets::replicas).sum() == deploymentReplicas;
    }

    /** The Machines of {@code ms}, being deleted included. */
    private static long held(GenericKubernetesResource ms, List<GenericKubernetesResource> machines, String setLabel) {
        return machines.stream().filter(m -> m.getMetadata().getLabels() != null
                && ms.getMetadata().getName().equals(m.getMetadata().getLabels().get(setLabel))).count();
    }

    /** The MachineSet's place in the removal order; after all of them for one that is not the MachineDeployment's. */
    int rank(String machineSet) {
        for (int i = 0; i < inRemovalOrder.size(); i++) {
            if (inRemovalOrder.get(i).getMetadata().getName().equals(machineSet)) {
                return i;
            }
        }
        return inRemovalOrder.size();
    }

    static int replicas(GenericKubernetesResource ms) {
        return JSON.valueToTree(ms).at("/spec/replicas").asInt(0);
    }

    /**
     * Whether a MachineSet's template is the MachineDeployment's by the fields that make a rollout;
     * absent and empty are the same (Go omits zero values), and the version is compared without
     * the {@code v} the MachineDeployment webhook adds.
     */
    static boolean upToDate(JsonNode machineSetTemplate, JsonNode machineDeploymentTemplate) {
        return ROLLOUT_FIELDS.stream().allMatch(f -> normalised(f, machineSetTemplate.path(f))
                .equals(normalised(f, machineDeploymentTemplate.path(f))));
    }

    private static JsonNode normalised(String field, JsonNode value) {
        if (value.isMissingNode() || value.isNull() || (value.isTextual() && value.asText().isEmpty())
                || (value.isContainerNode() && value.isEmpty())) {
            return MissingNode.getInstance();
        }
        if (field.equals("version") && value.isTextual()) {
            return JSON.getNodeFactory().textNode(value.asText().replaceFirst("^v", ""));
        }
        return value;
    }

    private static JsonNode templateSpec(GenericKubernetesResource o) {
        return JSON.valueToTree(o).at("/spec/template/spec");
    }
}
