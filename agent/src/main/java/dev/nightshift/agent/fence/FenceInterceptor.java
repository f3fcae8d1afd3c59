package dev.nightshift.agent.fence;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * On the agent's Kubernetes client (never the election's own, which renews the lease): no write request is sent, first
 * attempt or retry, while the {@link Fence} does not hold. Reads go on: a replica standing by keeps its caches.
 */
public final class FenceInterceptor implements Interceptor {

    private final Fence fence;

    public FenceInterceptor(Fence fence) {
        this.fence = fence;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (!request.method().equals("GET")) {
            fence.check(request.method() + " " + request.uri().getPath());
        }
    }
}
