package dev.nightshift.agent.provider.capi;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.spec.hash.StampedHash;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * Whether a Machine's roll hash can be believed, from the template its MachineSet makes Machines with.
 *
 * <p>Cluster API propagates a MachineDeployment's {@code spec.template.metadata} in place to every MachineSet, old ones
 * included, and from there to the Machines they create. So once Nightshift has put a new spec's hashes on the
 * MachineDeployment, a Machine an <em>old</em> MachineSet creates (after a MachineHealthCheck deleted one of its
 * Machines, say) carries the new hashes while it runs the old template. The annotation alone would make that old machine
 * look current, and it would never be replaced.
 *
 * <p>A MachineSet's infrastructure template, though, is immutable (a new one makes a new MachineSet), and Nightshift
 * names its clones after the roll hash ({@link MachineTemplates#cloneName}). So a roll hash {@code H} on a Machine is
 * believed when its MachineSet's template is {@code H}'s clone, or when no MachineSet and not the MachineDeployment use
 * {@code H}'s clone at all (a hash stamped at adoption, on Machines of the user's own template: nothing to compare
 * with). Otherwise the Machine is reported at a hash naming its real template, which no spec has: it is outdated, and
 * replaced as any outdated machine is.
 *
 * <p>"No clone in use" is only as true as the cached MachineDeployment and MachineSets. The agent's caches are
 * separate watches: under load the Machines' cache can hold the hashes Cluster API propagated while the
 * MachineDeployment's cache still shows the template before Nightshift's patch. The patch writes the hashes and the
 * template together, so a MachineDeployment whose own template hash differs from a Machine's is either older or newer
 * than that Machine: {@link #unsure} says so, and the provider then reads the MachineDeployment from the API server
 * before deciding (ProviderModelIT's seed 27 on cluster-api, under load, took an old MachineSet's replacement for
 * current from a cache that was behind).
 */
final class TemplateHashes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INFRASTRUCTURE = "/spec/template/spec/infrastructureRef/name";
    private static final String TEMPLATE_ANNOTATIONS = "/spec/template/metadata/annotations";

    private final String md;
    private final Map<String, String> templateOfSet;
    private final Set<String> inUse;
    private final Optional<StampedHash> deploymentHash;

    private TemplateHashes(String md, Map<String, String> templateOfSet, Set<String> inUse, Optional<StampedHash> deploymentHash) {
        this.md = md;
        this.templateOfSet = templateOfSet;
        this.inUse = inUse;
        this.deploymentHash = deploymentHash;
    }

    static TemplateHashes of(GenericKubernetesResource md, MachineSets sets) {
        Map<String, String> templateOfSet = new HashMap<>();
        Set<String> inUse = new HashSet<>();
        for (GenericKubernetesResource ms : sets.inRemovalOrder()) {
            String template = JSON.valueToTree(ms).at(INFRASTRUCTURE).asText("");
            templateOfSet.put(ms.getMetadata().getName(), template);
            inUse.add(template);
        }
        JsonNode deployment = JSON.valueToTree(md);
        inUse.add(deployment.at(INFRASTRUCTURE).asText(""));
        Map<String, String> annotations = new HashMap<>();
        deployment.at(TEMPLATE_ANNOTATIONS).fields().forEachRemaining(e -> annotations.put(e.getKey(), e.getValue().asText()));
        return new TemplateHashes(md.getMetadata().getName(), templateOfSet, inUse, NodeMarks.rollHash(annotations));
    }

    /**
     * The Machine's hash would be believed only because no clone for it is in use, while the MachineDeployment seen
     * carries another hash: the MachineDeployment seen may be older than the Machine. Read it afresh before deciding.
     */
    boolean unsure(StampedHash annotated, String machineSet) {
        return believedForLackOfAClone(annotated, machineSet) && !deploymentHash.map(annotated::equals).orElse(false);
    }

    private boolean believedForLackOfAClone(StampedHash annotated, String machineSet) {
        String template = templateOfSet.get(machineSet);
        String clone = MachineTemplates.cloneName(md, annotated);
        return template != null && !template.isEmpty() && !template.equals(clone) && !inUse.contains(clone);
    }

    /** {@code annotated} when the Machine's MachineSet (by name) can have made it at that hash; else a hash naming its template. */
    StampedHash rollHashOf(StampedHash annotated, String machineSet) {
        String template = templateOfSet.get(machineSet);
        String clone = MachineTemplates.cloneName(md, annotated);
        if (template == null || template.isEmpty() || template.equals(clone) || !inUse.contains(clone)) {
            return annotated;
        }
        return new StampedHash(annotated.version(), "made-from-template-" + template);
    }
}
