package dev.nightshift.sandbox.jobs;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;

/**
 * What a node updater's pod asks of its node, read from its container's environment as an updater image reads it (the
 * contract in {@code examples/node-updater/README.md}): {@code NIGHTSHIFT_OPERATION} and, from the JSON in
 * {@code NIGHTSHIFT_TARGET}, only {@code kubernetesVersion} and {@code machineImage.name}/{@code .version}.
 *
 * @param operation         {@value #RESTART_KUBELET}, {@value #IN_PLACE_UPDATE}, or anything else (a plain Job: it
 *                          only runs)
 * @param kubernetesVersion the target's, as written ({@code 1.31.5})
 * @param problem           why an updater would refuse this order (its termination message), when it would
 */
record UpdaterOrder(String operation, Optional<String> kubernetesVersion, Optional<String> imageName,
        Optional<String> imageVersion, Optional<String> problem) {

    static final String RESTART_KUBELET = "restart-kubelet";
    static final String IN_PLACE_UPDATE = "in-place-update";

    private static final ObjectMapper JSON = new ObjectMapper();

    UpdaterOrder {
        Objects.requireNonNull(operation, "operation");
    }

    static UpdaterOrder of(PodSpec pod) {
        List<Container> containers = pod.getContainers() == null ? List.of() : pod.getContainers();
        Container container = containers.stream().filter(c -> env(c, "NIGHTSHIFT_OPERATION").isPresent()).findFirst()
                .orElse(null);
        if (container == null) {
            return new UpdaterOrder("", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
        }
        String operation = env(container, "NIGHTSHIFT_OPERATION").orElse("");
        Optional<String> target = env(container, "NIGHTSHIFT_TARGET");
        if (!RESTART_KUBELET.equals(operation) && !IN_PLACE_UPDATE.equals(operation)) {
            return new UpdaterOrder(operation, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of("unknown NIGHTSHIFT_OPERATION '" + operation + "': expected restart-kubelet or in-place-update"));
        }
        if (target.isEmpty()) {
            return new UpdaterOrder(operation, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of("NIGHTSHIFT_TARGET is not set"));
        }
        JsonNode json;
        try {
            json = JSON.readTree(target.get());
        } catch (JsonProcessingException e) {
            return new UpdaterOrder(operation, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of("NIGHTSHIFT_TARGET is not JSON: " + e.getOriginalMessage()));
        }
        Optional<String> version = text(json.path("kubernetesVersion"));
        if (version.isEmpty()) {
            return new UpdaterOrder(operation, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of("NIGHTSHIFT_TARGET has no kubernetesVersion"));
        }
        return new UpdaterOrder(operation, version, text(json.path("machineImage").path("name")),
                text(json.path("machineImage").path("version")), Optional.empty());
    }

    /** What the kubelet reports once it runs the target: {@code v} and the version, nothing else (no vendor suffix). */
    Optional<String> kubeletVersion() {
        return kubernetesVersion.map(v -> v.startsWith("v") ? v : "v" + v);
    }

    /** What {@code status.nodeInfo.osImage} reads after an in-place update: the image's name and version. */
    Optional<String> osImage() {
        return imageName.map(name -> imageVersion.map(version -> name + " " + version).orElse(name));
    }

    private static Optional<String> env(Container container, String name) {
        List<EnvVar> env = container.getEnv() == null ? List.of() : container.getEnv();
        return env.stream().filter(e -> name.equals(e.getName()) && e.getValue() != null).map(EnvVar::getValue).findFirst();
    }

    private static Optional<String> text(JsonNode node) {
        return node.isTextual() && !node.asText().isBlank() ? Optional.of(node.asText()) : Optional.empty();
    }
}
