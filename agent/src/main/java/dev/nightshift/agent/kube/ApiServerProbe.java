package dev.nightshift.agent.kube;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * Asks the API server whether it is ready ({@code GET /readyz}, readable by everyone through the
 * built-in {@code system:public-info-viewer} role), as part of a cluster validation. Its client never
 * retries: an API server that is not ready must fail the check now, not after fabric8's backoff.
 */
public final class ApiServerProbe implements BooleanSupplier, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ApiServerProbe.class);
    private static final long TIMEOUT_SECONDS = 10;

    private final KubernetesClient client;

    /** @param interceptors added to its client, such as the one counting API errors */
    public ApiServerProbe(Config config, List<Interceptor> interceptors) {
        this.client = NonRetryingClient.build(config, interceptors);
    }

    /** The API server answered {@code /readyz} with 200 {@code ok}. */
    @Override
    public boolean getAsBoolean() {
        String url = client.getMasterUrl().toString().replaceAll("/+$", "") + "/readyz";
        HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url).build();
        try {
            HttpResponse<String> response = client.getHttpClient().sendAsync(request, String.class).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            boolean ready = response.code() == 200 && "ok".equals(response.body() == null ? "" : response.body().strip());
            if (!ready) {
                LOG.warn("API server not ready: /readyz answered {}", response.code());
            }
            return ready;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            LOG.warn("API server not ready: /readyz failed: {}", e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
