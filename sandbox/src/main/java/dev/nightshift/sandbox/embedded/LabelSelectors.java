package dev.nightshift.sandbox.embedded;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;

/** Label selector matching as the API server does it for policy/v1 budgets. */
final class LabelSelectors {

    private LabelSelectors() {
    }

    /**
     * Whether {@code selector} selects an object with {@code labels}. As in policy/v1, a missing selector selects
     * nothing and an empty one selects everything; all terms must hold.
     */
    static boolean matches(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        Map<String, String> actual = labels == null ? Map.of() : labels;
        Map<String, String> matchLabels = selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
        for (Map.Entry<String, String> term : matchLabels.entrySet()) {
            if (!term.getValue().equals(actual.get(term.getKey()))) {
                return false;
            }
        }
        List<LabelSelectorRequirement> expressions =
                selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions();
        return expressions.stream().allMatch(expression -> holds(expression, actual));
    }

    private static boolean holds(LabelSelectorRequirement requirement, Map<String, String> labels) {
        String value = labels.get(requirement.getKey());
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        return switch (requirement.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            // The API server refuses such a budget when it is created; the store does not, so refuse to match.
            default -> throw new IllegalArgumentException("unknown label selector operator " + requirement.getOperator());
        };
    }
}
