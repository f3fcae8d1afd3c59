package dev.nightshift.agent.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The evictions of one drain pass, sent at once up to a bound: a drain costs the time of its slowest pod's answer, not the
 * sum of them (a node of 30 pods behind a slow API server, or an admission webhook taking a second per eviction, waited
 * 30 s per pass before). The bound keeps one drain from flooding the API server (kubectl drain sends them all at once;
 * 8 in flight is plenty for the usual 10–110 pods of a node and stays under client-go's default QPS burst).
 *
 * <p>Each request is still answered on its own (budget, backoff and counts are per pod, by the caller), and each pod is
 * asked once per pass, so the request log has the same requests as a drain one pod at a time; only their order among
 * themselves may differ. No thread of its own: the requests are the HTTP client's asynchronous sends.
 */
public final class ConcurrentEvictions {

    /** Evictions of one drain in flight at once. */
    public static final int DEFAULT_BOUND = 8;

    /** One eviction, sent asynchronously: {@link Evictor#evictAsync} in the agent, a fake in tests. */
    @FunctionalInterface
    public interface Send {
        CompletableFuture<EvictionResult> evict(String namespace, String pod);
    }

    /** A pod to evict. */
    public record Request(String namespace, String pod) {
    }

    private final Send send;
    private final int bound;

    public ConcurrentEvictions(Send send, int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("the bound on evictions in flight must be at least 1, got " + bound);
        }
        this.send = send;
        this.bound = bound;
    }

    /** Every request's answer, in the order of {@code requests}; a request that failed to go out is a {@link EvictionResult.Retry}. */
    public List<EvictionResult> evict(List<Request> requests) {
        int n = requests.size();
        List<CompletableFuture<EvictionResult>> answers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            answers.add(new CompletableFuture<>());
        }
        AtomicInteger next = new AtomicInteger();
        // Each answer sends the next request: at most `bound` are in flight, and a slow one holds up only its own slot.
        Runnable sendNext = new Runnable() {
            @Override
            public void run() {
                int i = next.getAndIncrement();
                if (i >= n) {
                    return;
                }
                Request r = requests.get(i);
                CompletableFuture<EvictionResult> sent;
                try {
                    sent = send.evict(r.namespace(), r.pod());
                } catch (RuntimeException e) {
                    sent = CompletableFuture.failedFuture(e);
                }
                sent.handle((result, error) -> result != null && error == null ? result
                                : new EvictionResult.Retry(0, "eviction request failed: " + (error == null ? "no answer" : error.getMessage())))
                        .thenAccept(result -> {
                            answers.get(i).complete(result);
                            run();
                        });
            }
        };
        for (int k = 0; k < Math.min(bound, n); k++) {
            sendNext.run();
        }
        return answers.stream().map(CompletableFuture::join).toList();
    }
}
