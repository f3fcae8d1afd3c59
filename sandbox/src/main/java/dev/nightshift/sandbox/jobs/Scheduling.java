package dev.nightshift.sandbox.jobs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;

/**
 * The part of kube-scheduler's filtering that decides where a node updater's pod may run, with its messages: the
 * plugins {@code NodeUnschedulable} ({@code spec.unschedulable}, which a pod passes only by tolerating the taint
 * {@code node.kubernetes.io/unschedulable:NoSchedule}), {@code NodeAffinity} ({@code nodeSelector} and the required node
 * affinity: {@code matchExpressions} on labels, {@code matchFields} on {@code metadata.name}) and
 * {@code TaintToleration} (taints with effect {@code NoSchedule} or {@code NoExecute}), run in that order, a node
 * failing at the first. Resources, ports, volumes, pod (anti-)affinity and topology spread are not checked: an updater
 * pinned to one node asks for none of them.
 */
final class Scheduling {

    static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";
    static final String UNSCHEDULABLE = "node(s) were unschedulable";
    static final String AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector";

    /** Where the pod goes: a node, or none with the scheduler's {@code 0/N nodes are available: …} message. */
    record Placement(Optional<String> node, String message) {
    }

    private Scheduling() {
    }

    /** The first fitting node by name, as a deterministic stand-in for the scheduler's scoring. */
    static Placement place(PodSpec pod, List<Node> nodes) {
        Map<String, Integer> reasons = new TreeMap<>();
        List<Node> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        for (Node node : sorted) {
            Optional<String> reason = misfit(pod, node);
            if (reason.isEmpty()) {
                return new Placement(Optional.of(node.getMetadata().getName()), "");
            }
            reasons.merge(reason.get(), 1, Integer::sum);
        }
        List<String> counted = new ArrayList<>();
        reasons.forEach((reason, count) -> counted.add(count + " " + reason));
        String message = "0/" + nodes.size() + " nodes are available" + (counted.isEmpty() ? "." : ": " + String.join(", ", counted) + ".");
        return new Placement(Optional.empty(), message);
    }

    /** Why {@code pod} may not run on {@code node} (the first failing filter's reason), or empty when it may. */
    static Optional<String> misfit(PodSpec pod, Node node) {
        List<Toleration> tolerations = pod.getTolerations() == null ? List.of() : pod.getTolerations();
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())
                && tolerations.stream().noneMatch(t -> tolerates(t, new Taint("NoSchedule", UNSCHEDULABLE_TAINT, null, null)))) {
            return Optional.of(UNSCHEDULABLE);
        }
        if (!matchesSelectorAndAffinity(pod, node)) {
            return Optional.of(AFFINITY_MISMATCH);
        }
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
        for (Taint taint : taints) {
            boolean filters = "NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect());
            if (filters && tolerations.stream().noneMatch(t -> tolerates(t, taint))) {
                return Optional.of("node(s) had untolerated taint {" + taint.getKey() + ": "
                        + (taint.getValue() == null ? "" : taint.getValue()) + "}");
            }
        }
        return Optional.empty();
    }

    /** {@code Toleration.ToleratesTaint}: an empty effect matches all effects, an empty key with {@code Exists} all keys. */
    static boolean tolerates(Toleration toleration, Taint taint) {
        String effect = toleration.getEffect();
        if (effect != null && !effect.isEmpty() && !effect.equals(taint.getEffect())) {
            return false;
        }
        String key = toleration.getKey();
        if (key != null && !key.isEmpty() && !key.equals(taint.getKey())) {
            return false;
        }
        String operator = toleration.getOperator() == null || toleration.getOperator().isEmpty() ? "Equal" : toleration.getOperator();
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" -> (key != null && !key.isEmpty())
                    && nullToEmpty(toleration.getValue()).equals(nullToEmpty(taint.getValue()));
            default -> false;
        };
    }

    private static boolean matchesSelectorAndAffinity(PodSpec pod, Node node) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        if (pod.getNodeSelector() != null
                && pod.getNodeSelector().entrySet().stream().anyMatch(e -> !e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        NodeSelector required = pod.getAffinity() == null || pod.getAffinity().getNodeAffinity() == null ? null
                : pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null) {
            return true;
        }
        // The terms are ORed; a term's requirements are ANDed; a term with no requirement matches nothing.
        List<NodeSelectorTerm> terms = required.getNodeSelectorTerms() == null ? List.of() : required.getNodeSelectorTerms();
        return terms.stream().anyMatch(term -> matches(term, node.getMetadata().getName(), labels));
    }

    private static boolean matches(NodeSelectorTerm term, String nodeName, Map<String, String> labels) {
        List<NodeSelectorRequirement> expressions = term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
        List<NodeSelectorRequirement> fields = term.getMatchFields() == null ? List.of() : term.getMatchFields();
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        return expressions.stream().allMatch(r -> matchesLabel(r, labels))
                && fields.stream().allMatch(r -> matchesField(r, nodeName));
    }

    /** {@code matchFields} supports only {@code metadata.name} with {@code In} and {@code NotIn}, as the API server validates. */
    private static boolean matchesField(NodeSelectorRequirement requirement, String nodeName) {
        if (!"metadata.name".equals(requirement.getKey())) {
            return false;
        }
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        return switch (requirement.getOperator()) {
            case "In" -> values.contains(nodeName);
            case "NotIn" -> !values.contains(nodeName);
            default -> false;
        };
    }

    private static boolean matchesLabel(NodeSelectorRequirement requirement, Map<String, String> labels) {
        String value = labels.get(requirement.getKey());
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        return switch (requirement.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> value != null && values.size() == 1 && compare(value, values.get(0), requirement.getOperator());
            default -> false;
        };
    }

    private static boolean compare(String label, String bound, String operator) {
        try {
            long have = Long.parseLong(label);
            long limit = Long.parseLong(bound);
            return "Gt".equals(operator) ? have > limit : have < limit;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
