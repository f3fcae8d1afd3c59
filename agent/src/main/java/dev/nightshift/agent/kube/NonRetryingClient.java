package dev.nightshift.agent.kube;

import java.util.List;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * A client that never retries by itself. fabric8 retries 429s and 5xx with backoff for many
 * seconds before answering; where the answer itself is the news (a blocked eviction, an API server
 * that is not ready, a lease that cannot be renewed in time), it must come back at once.
 */
public final class NonRetryingClient {

    private NonRetryingClient() {
    }

    /** @param interceptors added to its client, such as the one counting API errors */
    public static KubernetesClient build(Config config, List<Interceptor> interceptors) {
        return new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(config).withRequestRetryBackoffLimit(0).build())
                .withHttpClientBuilderConsumer(b -> {
                    for (int i = 0; i < interceptors.size(); i++) {
                        b.addOrReplaceInterceptor("nightshift-" + i, interceptors.get(i));
                    }
                }).build();
    }
}
