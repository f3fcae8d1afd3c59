package dev.nightshift.agent.metrics;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * Counts the Kubernetes API requests that failed, by verb, for every request the agent's client
 * makes (informers' lists and watches included). A 404, 409 or 429 is an answer the agent acts on
 * (absent, conflict: re-read, budget: retry later), not an error; no answer, 401, 403 and 5xx are.
 */
public final class ApiErrorInterceptor implements Interceptor {

    private final AgentMetrics metrics;

    public ApiErrorInterceptor(AgentMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        int code = response.code();
        if (code == 401 || code == 403 || code >= 500) {
            metrics.apiError(verb(request.method(), request.uri().getPath(), request.uri().getQuery()));
        }
    }

    @Override
    public void afterConnectionFailure(HttpRequest request, Throwable failure) {
        metrics.apiError(verb(request.method(), request.uri().getPath(), request.uri().getQuery()));
    }

    /**
     * The Kubernetes verb of a request. A GET is a list when the path ends at a collection: after
     * {@code /api/v1} or {@code /apis/GROUP/VERSION} an odd number of segments
     * ({@code nodes}, {@code namespaces/x/pods}); an even number names one object.
     */
    static String verb(String method, String path, String query) {
        switch (method.toUpperCase(Locale.ROOT)) {
            case "POST":
                return "create";
            case "PUT":
                return "update";
            case "PATCH":
                return "patch";
            case "DELETE":
                return "delete";
            default:
                break;
        }
        if (query != null && (query.contains("watch=true") || query.contains("watch=1"))) {
            return "watch";
        }
        String[] segments = path.replaceAll("^/+|/+$", "").split("/+");
        int versionEnd = segments.length > 0 && segments[0].equals("apis") ? 3 : 2;
        int rest = segments.length - versionEnd;
        return rest > 0 && rest % 2 == 1 ? "list" : "get";
    }
}
