package dev.nightshift.agent.kube;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The evictions of the agent's drain passes, sent at once up to a bound: a drain costs the time of its slowest pod's
 * answer, not the sum of them (a node of 30 pods behind a slow API server, or an admission webhook taking a second per
 * eviction, waited 30 s per pass before). The bound is one for every drain at once, not one per drain: drain passes run
 * side by side ({@link DrainPasses}), and ten pools rolling put a hundred nodes in drain: with a bound per drain, their
 * evictions would crowd out the reconcile's own requests at the API server, which queues one client's requests together
 * (API Priority and Fairness gives one flow its share of seats). 8 in
 * flight is plenty for the usual 10–110 pods of a node and stays under client-go's default QPS burst; kubectl drain sends
 * one node's all at once. Requests wait their turn first come, first served, so one drain's pods go out together.
 *
 * <p>Each request is still answered on its own (budget, backoff and counts are per pod, by the caller), and each pod is
 * asked once per pass, so the request log has the same requests as a drain one pod at a time; only their order among
 * themselves may differ. No thread of its own: the requests are the HTTP client's asynchronous sends.
 */
public final class ConcurrentEvictions {

    /** Evictions in flight at once, over every drain. */
    public static final int DEFAULT_BOUND = 8;

    /** One eviction, sent asynchronously: {@link Evictor#evictAsync} in the agent, a fake in tests. */
    @FunctionalInterface
    public interface Send {
        CompletableFuture<EvictionResult> evict(String namespace, String pod);
    }

    /** A pod to evict. */
    public record Request(String namespace, String pod) {
    }

    /** A request waiting for its turn, and where its answer goes. */
    private record Waiting(Request request, CompletableFuture<EvictionResult> answer) {
    }

    private final Send send;
    private final int bound;
    /** Guarded by {@code this}. */
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    /** Guarded by {@code this}. */
    private int inFlight;

    public ConcurrentEvictions(Send send, int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("the bound on evictions in flight must be at least 1, got " + bound);
        }
        this.send = send;
        this.bound = bound;
    }

    /**
     * Every request's answer, in the order of {@code requests}, once all are answered; a request that failed to go out is a
     * {@link EvictionResult.Retry}. Safe to call from several threads at once: they share the bound.
     */
    public List<EvictionResult> evict(List<Request> requests) {
        List<CompletableFuture<EvictionResult>> answers = new ArrayList<>(requests.size());
        synchronized (this) {
            for (Request r : requests) {
                CompletableFuture<EvictionResult> answer = new CompletableFuture<>();
                answers.add(answer);
                waiting.add(new Waiting(r, answer));
            }
        }
        sendWhileRoom();
        return answers.stream().map(CompletableFuture::join).toList();
    }

    /** Sends waiting requests while fewer than the bound are in flight; each answer frees its slot and sends again. */
    private void sendWhileRoom() {
        while (true) {
            Waiting next;
            synchronized (this) {
                if (inFlight >= bound || waiting.isEmpty()) {
                    return;
                }
                next = waiting.poll();
                inFlight++;
            }
            Request r = next.request();
            CompletableFuture<EvictionResult> sent;
            try {
                sent = send.evict(r.namespace(), r.pod());
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            sent.handle((result, error) -> result != null && error == null ? result
                            : new EvictionResult.Retry(0, "eviction request failed: " + (error == null ? "no answer" : error.getMessage())))
                    .thenAccept(result -> {
                        synchronized (this) {
                            inFlight--;
                        }
                        next.answer().complete(result);
                        sendWhileRoom();
                    });
        }
    }
}
