package dev.nightshift.agent.provider.http;

import java.util.Map;
import java.util.Objects;

/**
 * The pool's machine spec as the machine API carries it ({@code MachineSpec} in the OpenAPI file).
 *
 * @param volume         null when the pool names none
 * @param kubelet        the pool's kubelet settings, as in the spec
 * @param providerConfig the pool's {@code providerConfig}, passed through untouched
 */
public record MachineSpec(String machineType, Image image, Volume volume, String cri, String kubernetesVersion,
                          Map<String, Object> kubelet, Map<String, Object> providerConfig) {

    public MachineSpec {
        Objects.requireNonNull(machineType, "machineType");
        Objects.requireNonNull(image, "image");
        kubelet = kubelet == null ? Map.of() : kubelet;
        providerConfig = providerConfig == null ? Map.of() : providerConfig;
    }

    public record Image(String name, String version) {
    }

    /** {@code size} as the spec writes it, e.g. {@code 50Gi}. */
    public record Volume(String type, String size) {
    }
}
