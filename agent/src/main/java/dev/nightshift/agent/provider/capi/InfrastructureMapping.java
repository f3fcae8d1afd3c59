package dev.nightshift.agent.provider.capi;

import java.util.Map;
import java.util.Optional;

/**
 * Where a pool's machine fields go in one kind of infrastructure machine template: JSON pointers
 * (RFC 6901) into the template object, each optional (a field the kind has no place for is not
 * written). The volume size is written in GiB, as the infrastructure providers take it.
 *
 * @param kind         the template's kind, e.g. {@code AWSMachineTemplate}
 * @param machineType  the pool's {@code machine.type}
 * @param volumeSize   the pool's {@code volume.size}, in whole GiB
 * @param volumeType   the pool's {@code volume.type}
 * @param image        the catalog's {@code providerImage} of the pool's image version
 * @param imageRequired the kind cannot pick an image itself: a version without {@code providerImage} is refused
 */
public record InfrastructureMapping(String kind, Optional<String> machineType, Optional<String> volumeSize,
                                    Optional<String> volumeType, Optional<String> image, boolean imageRequired) {

    /**
     * The kinds Nightshift knows: Cluster API's development provider (CAPD: {@code DevMachineTemplate}
     * and the deprecated {@code DockerMachineTemplate}, whose node image follows from the Kubernetes
     * version unless one is named) and AWS (CAPA: {@code AWSMachineTemplate}).
     */
    public static final Map<String, InfrastructureMapping> BUILT_IN = Map.of(
            "DevMachineTemplate", new InfrastructureMapping("DevMachineTemplate", Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.of("/spec/template/spec/backend/docker/customImage"), false),
            "DockerMachineTemplate", new InfrastructureMapping("DockerMachineTemplate", Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.of("/spec/template/spec/customImage"), false),
            "AWSMachineTemplate", new InfrastructureMapping("AWSMachineTemplate", Optional.of("/spec/template/spec/instanceType"),
                    Optional.of("/spec/template/spec/rootVolume/size"), Optional.of("/spec/template/spec/rootVolume/type"),
                    Optional.of("/spec/template/spec/ami/id"), true));
}
