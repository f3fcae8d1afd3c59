package dev.nightshift.agent.manifests;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * A manifest read as the Kubernetes type its {@code apiVersion} and {@code kind} name, strictly: fabric8's model
 * classes keep a field they do not know in {@code additionalProperties} instead of failing, so every object of the
 * typed tree is walked and any such field is reported with its path (a misspelt {@code readinesProbe}, a field at the
 * wrong level), as is a kind or version the model does not have (it stays a {@link GenericKubernetesResource}).
 */
final class StrictModel {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** Only to find each model class's JSON properties, as its Jackson annotations declare them. */
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private StrictModel() {
    }

    /** The manifest as the typed object kubectl would send; a kind or version fabric8 does not know stays generic. */
    static HasMetadata typed(Map<String, Object> manifest) {
        return SERIALIZATION.unmarshal(SERIALIZATION.asJson(manifest), HasMetadata.class);
    }

    /**
     * What keeps {@code manifest} from being exactly its Kubernetes type: an unknown kind or version (unless its kind is
     * one of {@code customKinds}, which have no model here), and every field the type does not have, by path.
     */
    static List<String> problems(Map<String, Object> manifest, Set<String> customKinds) {
        HasMetadata typed = typed(manifest);
        List<String> problems = new ArrayList<>();
        if (typed instanceof GenericKubernetesResource) {
            if (!customKinds.contains(String.valueOf(manifest.get("kind")))) {
                problems.add(manifest.get("apiVersion") + " " + manifest.get("kind") + " is not a Kubernetes type");
            }
            return problems;
        }
        if (!typed.getClass().getSimpleName().equals(manifest.get("kind"))) {
            problems.add("read as " + typed.getClass().getName() + ", not " + manifest.get("kind"));
        }
        walk(typed, "", problems);
        return problems;
    }

    private static void walk(Object value, String path, List<String> problems) {
        if (value == null) {
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> walk(v, path + "." + k, problems));
            return;
        }
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), path + "[" + i + "]", problems);
            }
            return;
        }
        if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        try {
            Object extra = value.getClass().getMethod("getAdditionalProperties").invoke(value);
            if (extra instanceof Map<?, ?> unknown && !unknown.isEmpty()) {
                problems.add((path.isEmpty() ? "." : path) + ": unknown " + unknown.keySet());
            }
        } catch (NoSuchMethodException e) {
            // a model class without additional properties: nothing can hide there
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(e);
        }
        BeanDescription bean = MAPPER.getSerializationConfig().introspect(MAPPER.constructType(value.getClass()));
        for (BeanPropertyDefinition property : bean.findProperties()) {
            if (property.getAccessor() != null && !property.getName().equals("additionalProperties")) {
                walk(property.getAccessor().getValue(value), path + "." + property.getName(), problems);
            }
        }
    }
}
