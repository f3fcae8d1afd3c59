package dev.nightshift.sandbox.capi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.MissingNode;

/**
 * Which machine template a MachineSet was made for, as upstream decides it
 * ({@code core/reconcilers/machinedeployment/mdutil/util.go}, {@code MachineTemplateUpToDate} and
 * {@code MachineTemplateDeepCopyRolloutFields}): only {@code spec.version}, {@code spec.bootstrap},
 * {@code spec.infrastructureRef} and {@code spec.failureDomain} of {@code spec.template} count. Template labels and
 * annotations, taints, timeouts and readiness gates do not make a new MachineSet: upstream propagates them in place
 * to every MachineSet and its Machines ({@code computeDesiredMS}, {@code machineset_controller.go syncMachines}).
 */
public final class MachineTemplates {

    private static final List<String> ROLLOUT_FIELDS = List.of("version", "bootstrap", "infrastructureRef", "failureDomain");
    private static final ObjectMapper JSON = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private MachineTemplates() {
    }

    /** Whether a MachineSet's {@code spec.template.spec} matches a MachineDeployment's, by the fields that make a rollout. */
    public static boolean upToDate(JsonNode machineSetTemplateSpec, JsonNode machineDeploymentTemplateSpec) {
        for (String field : ROLLOUT_FIELDS) {
            if (!normalised(machineSetTemplateSpec.path(field)).equals(normalised(machineDeploymentTemplateSpec.path(field)))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The value of the {@code machine-template-hash} label, from the rollout fields only. Upstream appends the
     * MachineSet's random name suffix ({@code <hash>-<suffix>}) so that two MachineSets of one template differ; so
     * does the double.
     */
    public static String hash(JsonNode templateSpec, String suffix) {
        StringBuilder canonical = new StringBuilder();
        for (String field : ROLLOUT_FIELDS) {
            canonical.append(field).append('=').append(canonicalJson(normalised(templateSpec.path(field)))).append('\n');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            long value = 0;
            for (int i = 0; i < 4; i++) {
                value = (value << 8) | (digest[i] & 0xff);
            }
            return value + "-" + suffix;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Absent, null and empty values are the same (Go's zero values are omitted from JSON). */
    private static JsonNode normalised(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode() || (node.isTextual() && node.asText().isEmpty())
                || (node.isContainerNode() && node.isEmpty())) {
            return MissingNode.getInstance();
        }
        return node;
    }

    private static String canonicalJson(JsonNode node) {
        try {
            return node.isMissingNode() ? "" : JSON.writeValueAsString(JSON.treeToValue(node, Object.class));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }
}
