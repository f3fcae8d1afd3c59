package dev.nightshift.sandbox.embedded;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusCauseBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The pod eviction subresource, which the mock server lacks: budgets in the store are enforced as the API server
 * enforces them (see {@link DisruptionBudgets} for the arithmetic). Callers hold the dispatcher's lock, so looking
 * up the budgets and deleting the pod happen with no other request in between.
 */
final class EvictionHandler {

    /** The API server's message for a refused eviction; the cause of type {@link #DISRUPTION_BUDGET_CAUSE} names the budget. */
    static final String BLOCKED_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
    /** {@code policyv1.DisruptionBudgetCause}: what tells a budget's 429 from throttling. */
    static final String DISRUPTION_BUDGET_CAUSE = "DisruptionBudget";

    /** Controllers whose scale the disruption controller reads, by kind: their resource in apps/v1. */
    private static final Map<String, String> SCALABLE = Map.of("ReplicaSet", "replicasets", "StatefulSet", "statefulsets");
    private static final Pattern PATH = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction");

    private final IndexedCrudDispatcher store;
    private final KubernetesSerialization json;
    private final ApiResponses responses;
    private final ObjectMapper mapper = new ObjectMapper();
    private final AtomicInteger throttled = new AtomicInteger();

    EvictionHandler(IndexedCrudDispatcher store, KubernetesSerialization json, ApiResponses responses) {
        this.store = store;
        this.json = json;
        this.responses = responses;
    }

    /** The pod an eviction path names. */
    record Target(String namespace, String pod) {
    }

    /** The target when {@code path} (without query) is an eviction subresource. */
    static Optional<Target> target(String path) {
        Matcher matcher = PATH.matcher(path);
        return matcher.matches() ? Optional.of(new Target(matcher.group(1), matcher.group(2))) : Optional.empty();
    }

    /** The next {@code count} evictions are answered with a plain 429, as a throttling API server does. */
    void throttle(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        throttled.set(count);
    }

    MockResponse evict(Target target, String body) {
        // Throttling rejects a request before it reaches the eviction handler, so it comes first.
        if (throttled.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return responses.failure(429, "TooManyRequests", "Too many requests, please try again later.")
                    .setHeader("Retry-After", "1");
        }
        JsonNode eviction;
        try {
            eviction = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            return responses.failure(400, "BadRequest", "cannot read the Eviction: " + e.getOriginalMessage());
        }
        if (eviction == null || !"Eviction".equals(eviction.path("kind").asText())) {
            return responses.failure(400, "BadRequest", "the body must be a policy/v1 Eviction");
        }
        String named = eviction.path("metadata").path("name").asText("");
        if (!named.isEmpty() && !named.equals(target.pod())) {
            return responses.failure(400, "BadRequest", "name in URL does not match name in Eviction object");
        }
        Optional<Pod> pod = pod(target);
        if (pod.isEmpty()) {
            return responses.notFound("pods", target.pod());
        }
        boolean dryRun = false;
        for (JsonNode mode : eviction.path("deleteOptions").path("dryRun")) {
            dryRun |= "All".equals(mode.asText());
        }
        return decide(target, pod.get(), dryRun);
    }

    private MockResponse decide(Target target, Pod pod, boolean dryRun) {
        if (DisruptionBudgets.exempt(pod)) {
            return evicted(target, dryRun);
        }
        List<PodDisruptionBudget> budgets = budgets(target.namespace()).stream()
                .filter(pdb -> pdb.getSpec() != null && LabelSelectors.matches(pdb.getSpec().getSelector(), pod.getMetadata().getLabels()))
                .toList();
        if (budgets.size() > 1) {
            return responses.failure(500, "InternalError",
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
        }
        if (budgets.isEmpty()) {
            return evicted(target, dryRun);
        }
        PodDisruptionBudget pdb = budgets.get(0);
        List<Pod> selected = pods(target.namespace()).stream()
                .filter(p -> LabelSelectors.matches(pdb.getSpec().getSelector(), p.getMetadata().getLabels()))
                .toList();
        DisruptionBudgets.BudgetStatus status = DisruptionBudgets.status(pdb, selected, controllerScale(target.namespace(), selected));
        if (!DisruptionBudgets.healthy(pod) && unhealthyMayGo(pdb, status)) {
            return evicted(target, dryRun);
        }
        if (status.disruptionsAllowed() <= 0) {
            return responses.failure(429, "TooManyRequests", BLOCKED_MESSAGE, List.of(new StatusCauseBuilder()
                    .withReason(DISRUPTION_BUDGET_CAUSE)
                    .withMessage("The disruption budget " + status.name() + " needs " + status.desiredHealthy()
                            + " healthy pods and has " + status.currentHealthy() + " currently")
                    .build()));
        }
        return evicted(target, dryRun);
    }

    /**
     * An unhealthy pod does not count towards a budget, so the API server lets it go when the budget is met
     * ({@code IfHealthyBudget}, the default) or always ({@code AlwaysAllow}).
     */
    private static boolean unhealthyMayGo(PodDisruptionBudget pdb, DisruptionBudgets.BudgetStatus status) {
        if ("AlwaysAllow".equals(pdb.getSpec().getUnhealthyPodEvictionPolicy())) {
            return true;
        }
        return status.currentHealthy() >= status.desiredHealthy() && status.desiredHealthy() > 0;
    }

    /**
     * The pods the controllers of {@code selected} want: the replicas of each ReplicaSet or StatefulSet in the store
     * that controls some of them, plus one per pod with no such controller.
     */
    private int controllerScale(String namespace, List<Pod> selected) {
        Map<String, Integer> replicas = new HashMap<>();
        int others = 0;
        for (Pod pod : selected) {
            Optional<OwnerReference> owner = Optional.ofNullable(pod.getMetadata().getOwnerReferences()).orElse(List.of())
                    .stream().filter(ref -> Boolean.TRUE.equals(ref.getController())).findFirst();
            String plural = owner.map(ref -> SCALABLE.get(ref.getKind())).orElse(null);
            if (plural == null) {
                others++;
                continue;
            }
            String path = "/apis/apps/v1/namespaces/" + namespace + "/" + plural + "/" + owner.get().getName();
            if (!replicas.containsKey(path)) {
                MockResponse found = store.handleGet(path);
                replicas.put(path, found.code() == 200 ? replicasOf(found.getBody().readUtf8()) : null);
            }
            if (replicas.get(path) == null) {
                others++; // the controller is not in the store: the pod counts as itself
            }
        }
        return others + replicas.values().stream().filter(Objects::nonNull).mapToInt(Integer::intValue).sum();
    }

    private int replicasOf(String controller) {
        try {
            JsonNode replicas = mapper.readTree(controller).path("spec").path("replicas");
            return replicas.isMissingNode() || replicas.isNull() ? 1 : replicas.asInt();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the store holds an unreadable controller", e);
        }
    }

    private MockResponse evicted(Target target, boolean dryRun) {
        if (!dryRun) {
            // Through the store's own delete, so that watches see DELETED (or MODIFIED when finalizers hold the pod).
            store.handleDelete(podPath(target));
        }
        return responses.success(201);
    }

    private Optional<Pod> pod(Target target) {
        MockResponse found = store.handleGet(podPath(target));
        return found.code() == 200 ? Optional.of(json.unmarshal(found.getBody().readUtf8(), Pod.class)) : Optional.empty();
    }

    private List<Pod> pods(String namespace) {
        return store.objects("pods", namespace).stream().map(body -> json.unmarshal(body, Pod.class)).toList();
    }

    private List<PodDisruptionBudget> budgets(String namespace) {
        return store.objects("poddisruptionbudgets", namespace).stream().map(body -> json.unmarshal(body, PodDisruptionBudget.class)).toList();
    }

    private static String podPath(Target target) {
        return "/api/v1/namespaces/" + target.namespace() + "/pods/" + target.pod();
    }
}
