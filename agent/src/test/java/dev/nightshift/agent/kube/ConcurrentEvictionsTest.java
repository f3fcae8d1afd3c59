package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConcurrentEvictionsTest {

    private final ExecutorService caller = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        caller.shutdownNow();
    }

    /**
     * A server that answers nothing until it holds {@code waitFor} requests at once (then answers them all), or until the
     * test says so: a drain one pod at a time would never get there.
     */
    private static final class Server implements ConcurrentEvictions.Send {
        private final int waitFor;
        private final List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        private final List<CompletableFuture<EvictionResult>> open = new ArrayList<>();
        private int inFlight;
        private int mostInFlight;

        Server(int waitFor) {
            this.waitFor = waitFor;
        }

        @Override
        public synchronized CompletableFuture<EvictionResult> evict(String namespace, String pod) {
            order.add(pod);
            inFlight++;
            mostInFlight = Math.max(mostInFlight, inFlight);
            CompletableFuture<EvictionResult> answer = new CompletableFuture<>();
            open.add(answer);
            if (open.size() >= waitFor) {
                answerAll();
            }
            return answer.thenApply(r -> r);
        }

        synchronized void answerAll() {
            List<CompletableFuture<EvictionResult>> answering = new ArrayList<>(open);
            open.clear();
            inFlight -= answering.size();
            // Answered outside the list: each answer may send the next request, which lands here again.
            answering.forEach(a -> CompletableFuture.runAsync(() -> a.complete(new EvictionResult.Evicted())));
        }

        synchronized int mostInFlight() {
            return mostInFlight;
        }
    }

    private static List<ConcurrentEvictions.Request> pods(int n) {
        return IntStream.range(0, n).mapToObj(i -> new ConcurrentEvictions.Request("shop", "app-" + i)).toList();
    }

    @Test
    void theEvictionsOfADrainAreAllInFlightAtOnceUpToTheBound() throws Exception {
        Server server = new Server(5);

        Future<List<EvictionResult>> drained = caller.submit(() -> new ConcurrentEvictions(server, 8).evict(pods(5)));

        // Answered only once all five were out at once; one at a time, nothing would ever be answered.
        assertThat(drained.get(30, TimeUnit.SECONDS)).hasSize(5).allMatch(r -> r instanceof EvictionResult.Evicted);
        assertThat(server.mostInFlight()).isEqualTo(5);
    }

    @Test
    void neverMoreThanTheBoundAreInFlight() throws Exception {
        Server server = new Server(3);

        Future<List<EvictionResult>> drained = caller.submit(() -> new ConcurrentEvictions(server, 3).evict(pods(10)));

        // Batches of three are answered; the tenth pod alone is answered by hand.
        org.awaitility.Awaitility.await().until(() -> server.order.size() == 10);
        server.answerAll();
        assertThat(drained.get(30, TimeUnit.SECONDS)).hasSize(10);
        assertThat(server.mostInFlight()).isEqualTo(3);
        assertThat(server.order).containsExactlyInAnyOrderElementsOf(pods(10).stream().map(ConcurrentEvictions.Request::pod).toList());
    }

    @Test
    void drainsOfSeveralNodesAtOnceShareTheBound() throws Exception {
        Server server = new Server(Integer.MAX_VALUE);
        ConcurrentEvictions evictions = new ConcurrentEvictions(server, 4);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<List<EvictionResult>> first = caller.submit(() -> evictions.evict(pods(3)));
            Future<List<EvictionResult>> second = other.submit(() -> evictions.evict(pods(3)));

            // Six requests of two drains, four at a time (a bound per drain would have sent all six): answered by hand.
            org.awaitility.Awaitility.await().until(() -> server.order.size() >= 4);
            server.answerAll();
            org.awaitility.Awaitility.await().until(() -> server.order.size() == 6);
            server.answerAll();
            assertThat(first.get(30, TimeUnit.SECONDS)).hasSize(3);
            assertThat(second.get(30, TimeUnit.SECONDS)).hasSize(3);
            assertThat(server.mostInFlight()).isEqualTo(4);
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void eachAnswerStaysWithItsPodAndAFailedSendIsARetry() {
        ConcurrentEvictions.Send send = (namespace, pod) -> switch (pod) {
            case "app-0" -> CompletableFuture.supplyAsync(() -> new EvictionResult.BlockedByBudget("app-pdb", "refused"));
            case "app-1" -> CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            case "app-2" -> throw new IllegalStateException("fenced");
            default -> CompletableFuture.completedFuture(new EvictionResult.NotFound());
        };

        List<EvictionResult> results = new ConcurrentEvictions(send, 2).evict(pods(4));

        assertThat(results.get(0)).isEqualTo(new EvictionResult.BlockedByBudget("app-pdb", "refused"));
        assertThat(results.get(1)).isInstanceOfSatisfying(EvictionResult.Retry.class, r -> assertThat(r.message()).contains("connection reset"));
        assertThat(results.get(2)).isInstanceOfSatisfying(EvictionResult.Retry.class, r -> assertThat(r.message()).contains("fenced"));
        assertThat(results.get(3)).isEqualTo(new EvictionResult.NotFound());
    }
}
