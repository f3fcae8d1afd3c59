package dev.nightshift.agent.provider.capi;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.MachineImage;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;

/**
 * The machine templates a pool's MachineDeployment points at. Templates are immutable by Cluster
 * API's convention, so a new roll hash gets a clone of the MachineDeployment's current
 * infrastructure template, named {@code <md>-<first 10 hex of the roll hash>}, with the pool's
 * machine fields written through the kind's {@link InfrastructureMapping} and the pool's
 * {@code providerConfig.infrastructureTemplate} merged last (RFC 7386, onto the template
 * object's {@code spec.template.spec}); a KubeadmConfigTemplate is cloned the same way for the
 * kubelet settings, named {@code <md>-kubelet-<first 10 hex of the kubelet hash>}. Clones carry
 * {@value #CLONE_OF} naming their MachineDeployment: only those are ever deleted.
 */
final class MachineTemplates {

    private static final Logger LOG = LoggerFactory.getLogger(MachineTemplates.class);

    /** On templates Nightshift created: the MachineDeployment they were cloned for. */
    static final String CLONE_OF = "nightshift.dev/template-of";
    /** The kubelet flags Nightshift sets in a KubeadmConfigTemplate; any other flag is the user's and kept. */
    static final List<String> KUBELET_FLAGS = List.of("kube-reserved", "system-reserved", "eviction-hard", "cpu-manager-policy");
    private static final String KUBELET_ARGS = "/spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final BigDecimal GIB = BigDecimal.valueOf(1L << 30);

    /** A template reference as Cluster API v1beta2 writes it: the version comes from the CRD's contract labels. */
    record Ref(String apiGroup, String kind, String name) {

        static Optional<Ref> of(JsonNode ref) {
            if (ref == null || !ref.hasNonNull("kind") || !ref.hasNonNull("name")) {
                return Optional.empty();
            }
            return Optional.of(new Ref(ref.path("apiGroup").asText(""), ref.path("kind").asText(), ref.path("name").asText()));
        }

        Ref named(String other) {
            return new Ref(apiGroup, kind, other);
        }

        ObjectNode json() {
            ObjectNode o = JSON.createObjectNode();
            o.put("apiGroup", apiGroup);
            o.put("kind", kind);
            o.put("name", name);
            return o;
        }
    }

    private final KubernetesClient client;
    private final ClusterApiSettings settings;
    private final Map<String, String> groupVersions = new HashMap<>();

    MachineTemplates(KubernetesClient client, ClusterApiSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    static String cloneName(String md, StampedHash hash) {
        return md + "-" + hex10(hash);
    }

    static String kubeletCloneName(String md, StampedHash hash) {
        return md + "-kubelet-" + hex10(hash);
    }

    private static String hex10(StampedHash hash) {
        String hex = hash.value().toLowerCase(Locale.ROOT).replaceAll("[^0-9a-f]", "");
        return hex.substring(0, Math.min(10, hex.length()));
    }

    /** The infrastructure template for the pool's desired spec, cloned from {@code current} unless it exists. */
    Ref infrastructure(String md, Ref current, DesiredPool pool) {
        String name = cloneName(md, pool.rollHash());
        if (current.name().equals(name)) {
            return current;
        }
        InfrastructureMapping mapping = settings.mapping(current.kind()).orElseThrow(() -> new IllegalStateException(
                "no mapping for infrastructure template kind " + current.kind() + ": add it under provider.clusterApi.infrastructure"));
        Ref clone = current.named(name);
        ensureClone(md, current, clone, template -> {
            ResolvedPool spec = pool.spec();
            mapping.machineType().ifPresent(p -> JsonObjects.set(template, p, TextNode.valueOf(spec.pool().machine().type())));
            spec.pool().volume().ifPresent(v -> {
                mapping.volumeSize().ifPresent(p -> JsonObjects.set(template, p, JSON.getNodeFactory().numberNode(gib(v.size()))));
                mapping.volumeType().ifPresent(p -> JsonObjects.set(template, p, TextNode.valueOf(v.type())));
            });
            Optional<String> image = providerImage(spec);
            if (mapping.imageRequired() && image.isEmpty()) {
                throw new IllegalStateException(current.kind() + " needs the image's providerImage: set"
                        + " Cluster.spec.machineImages[name=" + spec.pool().machine().image().name() + "].versions[version="
                        + spec.pool().machine().image().version().text() + "].providerImage");
            }
            image.ifPresent(i -> mapping.image().ifPresent(p -> JsonObjects.set(template, p, TextNode.valueOf(i))));
            Object override = spec.pool().providerConfig().values().get("infrastructureTemplate");
            if (override != null) {
                JsonNode patch = JSON.valueToTree(override);
                if (!patch.isObject()) {
                    throw new IllegalStateException("providerConfig.infrastructureTemplate of pool " + spec.name() + " must be a map");
                }
                JsonNode target = template.at("/spec/template/spec");
                if (target instanceof ObjectNode o) {
                    JsonObjects.merge(o, patch);
                } else {
                    ObjectNode fresh = JSON.createObjectNode();
                    JsonObjects.merge(fresh, patch);
                    JsonObjects.set(template, "/spec/template/spec", fresh);
                }
            }
        });
        return clone;
    }

    /** The bootstrap template for the pool's kubelet settings, when the MachineDeployment uses a KubeadmConfigTemplate. */
    Ref bootstrap(String md, Ref current, DesiredPool pool) {
        if (!ClusterApi.KUBEADM_CONFIG_TEMPLATE.equals(current.kind())) {
            return current;
        }
        String name = kubeletCloneName(md, pool.kubeletHash());
        if (current.name().equals(name)) {
            return current;
        }
        Ref clone = current.named(name);
        ensureClone(md, current, clone, template -> {
            JsonNode existing = template.at(KUBELET_ARGS);
            ArrayNode args = JSON.createArrayNode();
            if (existing.isArray()) {
                existing.forEach(a -> {
                    if (!KUBELET_FLAGS.contains(a.path("name").asText())) {
                        args.add(a);
                    }
                });
            }
            kubeletFlags(pool.spec().kubelet()).forEach((flag, value) -> args.addObject().put("name", flag).put("value", value));
            JsonObjects.set(template, KUBELET_ARGS, args);
        });
        return clone;
    }

    /** The kubelet's flags for these settings, in v1beta2's {@code kubeletExtraArgs} list form. */
    static Map<String, String> kubeletFlags(KubeletConfig kubelet) {
        Map<String, String> flags = new TreeMap<>();
        kubelet.kubeReserved().filter(m -> !m.isEmpty()).ifPresent(m -> flags.put("kube-reserved", quantities(m)));
        kubelet.systemReserved().filter(m -> !m.isEmpty()).ifPresent(m -> flags.put("system-reserved", quantities(m)));
        kubelet.evictionHard().filter(m -> !m.isEmpty()).ifPresent(m -> {
            StringBuilder s = new StringBuilder();
            new TreeMap<>(m).forEach((signal, threshold) -> s.append(s.length() == 0 ? "" : ",").append(signal).append('<').append(threshold));
            flags.put("eviction-hard", s.toString());
        });
        kubelet.cpuManagerPolicy().ifPresent(p -> flags.put("cpu-manager-policy", p));
        return flags;
    }

    private static String quantities(Map<String, Quantity> m) {
        StringBuilder s = new StringBuilder();
        new TreeMap<>(m).forEach((resource, q) -> s.append(s.length() == 0 ? "" : ",").append(resource).append('=').append(q.text()));
        return s.toString();
    }

    private static long gib(Quantity size) {
        return size.amount().divide(GIB, 0, RoundingMode.CEILING).longValueExact();
    }

    private static Optional<String> providerImage(ResolvedPool spec) {
        return spec.cluster().machineImage(spec.pool().machine().image().name())
                .flatMap(i -> i.find(spec.pool().machine().image().version())).flatMap(MachineImage.Version::providerImage);
    }

    private void ensureClone(String md, Ref current, Ref clone, java.util.function.Consumer<ObjectNode> edit) {
        MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> op = operation(current);
        if (op.inNamespace(settings.namespace()).withName(clone.name()).get() != null) {
            // Created before a crash or by the previous attempt: the name is the content's hash.
            return;
        }
        GenericKubernetesResource original = op.inNamespace(settings.namespace()).withName(current.name()).get();
        if (original == null) {
            throw new IllegalStateException(current.kind() + " " + settings.namespace() + "/" + current.name()
                    + ", the MachineDeployment's template, does not exist");
        }
        ObjectNode template = JSON.valueToTree(original);
        template.remove("status");
        ObjectNode oldMeta = (ObjectNode) template.path("metadata");
        ObjectNode meta = JSON.createObjectNode();
        meta.put("name", clone.name());
        meta.put("namespace", settings.namespace());
        ObjectNode labels = meta.putObject("labels");
        if (oldMeta.get("labels") instanceof ObjectNode l) {
            labels.setAll(l);
        }
        labels.put(CLONE_OF, md);
        if (oldMeta.get("annotations") instanceof ObjectNode a) {
            ObjectNode annotations = meta.putObject("annotations");
            annotations.setAll(a);
            annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
        }
        template.set("metadata", meta);
        edit.accept(template);
        try {
            op.inNamespace(settings.namespace()).resource(JSON.treeToValue(template, GenericKubernetesResource.class)).create();
            LOG.info("created {} {}/{} from {} for MachineDeployment {}", clone.kind(), settings.namespace(), clone.name(),
                    current.name(), md);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot build " + clone.kind() + " " + clone.name(), e);
        }
    }

    /**
     * Deletes the templates Nightshift cloned for {@code md} that neither the MachineDeployment nor
     * any of its MachineSets still names; never a template Nightshift did not create.
     */
    void collect(String md, Set<Ref> inUse, Set<Ref> kinds) {
        for (Ref kind : kinds) {
            MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> op = operation(kind);
            List<GenericKubernetesResource> ours = new ArrayList<>(op.inNamespace(settings.namespace()).withLabel(CLONE_OF, md).list().getItems());
            for (GenericKubernetesResource t : ours) {
                Ref ref = kind.named(t.getMetadata().getName());
                if (!inUse.contains(ref) && md.equals(t.getMetadata().getLabels().get(CLONE_OF))) {
                    op.inNamespace(settings.namespace()).withName(ref.name()).delete();
                    LOG.info("deleted {} {}/{}: no MachineSet of {} uses it any more", ref.kind(), settings.namespace(), ref.name(), md);
                }
            }
        }
    }

    private MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> operation(Ref ref) {
        String groupVersion = groupVersions.computeIfAbsent(ref.apiGroup(), group -> {
            var apiGroup = client.getApiGroup(group);
            if (apiGroup == null || apiGroup.getPreferredVersion() == null) {
                throw new IllegalStateException("the API server serves no group " + group + " (for " + ref.kind() + ")");
            }
            return apiGroup.getPreferredVersion().getGroupVersion();
        });
        return client.genericKubernetesResources(groupVersion, ref.kind());
    }
}
