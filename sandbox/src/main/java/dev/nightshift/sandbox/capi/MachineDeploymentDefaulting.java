package dev.nightshift.sandbox.capi;

import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.sandbox.embedded.Admission;

/**
 * Cluster API's MachineDeployment defaulting webhook, the part a machine provider meets: a
 * {@code spec.template.spec.version} without the leading {@code v} is stored with it ({@code 1.31.5} becomes
 * {@code v1.31.5}), before the object is stored, as the real webhook does
 * ({@code core/webhooks/admission/machinedeployment.go}, {@code MachineDeployment.Default}).
 */
final class MachineDeploymentDefaulting implements Admission {

    private static final Pattern MACHINE_DEPLOYMENTS =
            Pattern.compile("/apis/cluster\\.x-k8s\\.io/v1beta2/namespaces/[^/]+/machinedeployments(/[^/]+)?");

    @Override
    public ObjectNode admit(String resourcePath, ObjectNode object) {
        if (!MACHINE_DEPLOYMENTS.matcher(resourcePath).matches()) {
            return object;
        }
        JsonNode spec = object.path("spec").path("template").path("spec");
        JsonNode version = spec.path("version");
        if (spec.isObject() && version.isTextual() && !version.asText().isEmpty() && !version.asText().startsWith("v")) {
            ((ObjectNode) spec).put("version", "v" + version.asText());
        }
        return object;
    }
}
