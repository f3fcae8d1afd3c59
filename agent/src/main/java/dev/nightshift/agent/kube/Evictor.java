package dev.nightshift.agent.kube;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * Evicts pods through the Eviction API (policy/v1). Its client never retries by itself: fabric8
 * retries 429s with backoff for many seconds before answering, and a blocked eviction must come
 * back at once so that the drain loop decides (count the attempt, report, force or wait).
 */
public final class Evictor implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern BUDGET = Pattern.compile("disruption budget ([a-z0-9.-]+)", Pattern.CASE_INSENSITIVE);

    private final KubernetesClient client;

    public Evictor(Config config) {
        this(config, List.of());
    }

    /** @param interceptors added to its client, such as the one counting API errors */
    public Evictor(Config config, List<Interceptor> interceptors) {
        this.client = NonRetryingClient.build(config, interceptors);
    }

    public EvictionResult evict(String namespace, String pod) {
        return evictAsync(namespace, pod).join();
    }

    /**
     * One eviction, sent without waiting for its answer ({@link ConcurrentEvictions} sends a drain's at once); never
     * completes exceptionally: a request that fails or gets no answer within 30 s is a {@link EvictionResult.Retry}.
     */
    public CompletableFuture<EvictionResult> evictAsync(String namespace, String pod) {
        String url = client.getMasterUrl().toString().replaceAll("/+$", "") + "/api/v1/namespaces/" + namespace + "/pods/"
                + pod + "/eviction";
        String body;
        try {
            body = JSON.writeValueAsString(Map.of("apiVersion", "policy/v1", "kind", "Eviction",
                    "metadata", Map.of("name", pod, "namespace", namespace)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        HttpClient http = client.getHttpClient();
        HttpRequest request = http.newHttpRequestBuilder().uri(url).post("application/json", body).build();
        CompletableFuture<HttpResponse<String>> sent;
        try {
            sent = http.sendAsync(request, String.class);
        } catch (RuntimeException e) {
            // The fence's interceptor refuses a write without the lease before anything is sent.
            return CompletableFuture.completedFuture(new EvictionResult.Retry(0, "eviction request failed: " + e.getMessage()));
        }
        return sent.orTimeout(30, TimeUnit.SECONDS).handle((response, error) -> error != null
                ? new EvictionResult.Retry(0, "eviction request failed: " + error.getMessage()) : result(response));
    }

    private static EvictionResult result(HttpResponse<String> response) {
        int code = response.code();
        if (code == 200 || code == 201) {
            return new EvictionResult.Evicted();
        }
        if (code == 404) {
            return new EvictionResult.NotFound();
        }
        String text = response.body() == null ? "" : response.body();
        if (code == 429) {
            return budgetCause(text).orElseGet(() -> new EvictionResult.Retry(code, message(text)));
        }
        return new EvictionResult.Retry(code, message(text));
    }

    /** A 429 is a blocked eviction only when its cause is a disruption budget; otherwise it is throttling. */
    static java.util.Optional<EvictionResult> budgetCause(String statusJson) {
        try {
            JsonNode status = JSON.readTree(statusJson);
            for (JsonNode cause : status.path("details").path("causes")) {
                // StatusCause.Type is serialised as "reason" by the API server (Go tag json:"reason").
                if ("DisruptionBudget".equals(cause.path("reason").asText(cause.path("type").asText()))) {
                    String message = cause.path("message").asText(status.path("message").asText());
                    Matcher m = BUDGET.matcher(message + " " + status.path("message").asText());
                    return java.util.Optional.of(new EvictionResult.BlockedByBudget(m.find() ? m.group(1) : "unknown", message));
                }
            }
        } catch (Exception e) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.empty();
    }

    private static String message(String statusJson) {
        try {
            return JSON.readTree(statusJson).path("message").asText(statusJson);
        } catch (Exception e) {
            return statusJson;
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
