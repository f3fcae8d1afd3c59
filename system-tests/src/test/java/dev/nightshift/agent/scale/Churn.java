package dev.nightshift.agent.scale;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Churn that cannot change a plan, sent to the Kubernetes API at fixed rates for a while: kubelet heartbeats (each
 * node's Ready condition posted again with a new {@code lastHeartbeatTime}, its status and transition time unchanged)
 * and pod status updates (a container's restart count) on nodes nothing is being done to. A request is sent every
 * tick while fewer than {@link #IN_FLIGHT} are unanswered; beyond that the API is not keeping up and the request is
 * counted as not sent, so the rates achieved are what the API took.
 */
final class Churn {

    static final String USER_AGENT = "nightshift-scale-churn";
    private static final int IN_FLIGHT = 256;
    private static final Duration TICK = Duration.ofMillis(100);

    /** A node and its Ready condition's transition time, which heartbeats keep. */
    record Heartbeat(String node, String readySince) {
    }

    /** A pod the churn updates. */
    record PodRef(String namespace, String name) {
    }

    /** What was sent and answered. */
    record Result(Duration took, long heartbeats, long podUpdates, long failed, long notSent) {
        double heartbeatsPerSecond() {
            return heartbeats / (took.toMillis() / 1000.0);
        }

        double podUpdatesPerSecond() {
            return podUpdates / (took.toMillis() / 1000.0);
        }
    }

    private final String api;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Semaphore heartbeatsInFlight = new Semaphore(IN_FLIGHT);
    private final Semaphore podsInFlight = new Semaphore(IN_FLIGHT);
    private final AtomicLong heartbeats = new AtomicLong();
    private final AtomicLong podUpdates = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong notSent = new AtomicLong();

    Churn(String api) {
        this.api = api;
    }

    /** Sends {@code heartbeatsPerSecond} heartbeats over {@code nodes} in turn and {@code podsPerSecond} updates of random {@code pods}. */
    Result run(List<Heartbeat> nodes, double heartbeatsPerSecond, List<PodRef> pods, double podsPerSecond, Duration duration)
            throws InterruptedException {
        Random random = new Random(16);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        double ticksPerSecond = 1000.0 / TICK.toMillis();
        double[] owed = {0, 0};
        int[] nextNode = {0};
        long[] restarts = {0};
        Instant start = Instant.now();
        ticker.scheduleAtFixedRate(() -> {
            owed[0] += heartbeatsPerSecond / ticksPerSecond;
            owed[1] += podsPerSecond / ticksPerSecond;
            String now = Instant.now().toString();
            for (; owed[0] >= 1; owed[0]--) {
                Heartbeat h = nodes.get(nextNode[0]++ % nodes.size());
                send("/api/v1/nodes/" + h.node(), "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":"
                        + "\"KubeletReady\",\"lastHeartbeatTime\":\"" + now + "\",\"lastTransitionTime\":\"" + h.readySince() + "\"}]}}",
                        heartbeats, heartbeatsInFlight);
            }
            for (; owed[1] >= 1; owed[1]--) {
                PodRef p = pods.get(random.nextInt(pods.size()));
                send("/api/v1/namespaces/" + p.namespace() + "/pods/" + p.name(), "{\"status\":{\"containerStatuses\":[{\"name\":"
                        + "\"app\",\"ready\":true,\"started\":true,\"restartCount\":" + (++restarts[0]) + ",\"image\":\"app\",\"imageID\":\"\"}]}}",
                        podUpdates, podsInFlight);
            }
        }, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        Thread.sleep(duration.toMillis());
        ticker.shutdownNow();
        ticker.awaitTermination(10, TimeUnit.SECONDS);
        for (Semaphore inFlight : List.of(heartbeatsInFlight, podsInFlight)) {
            inFlight.acquire(IN_FLIGHT);
            inFlight.release(IN_FLIGHT);
        }
        return new Result(Duration.between(start, Instant.now()), heartbeats.get(), podUpdates.get(), failed.get(), notSent.get());
    }

    private void send(String path, String mergePatch, AtomicLong answered, Semaphore inFlight) {
        if (!inFlight.tryAcquire()) {
            notSent.incrementAndGet();
            return;
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/merge-patch+json").header("User-Agent", USER_AGENT)
                .method("PATCH", HttpRequest.BodyPublishers.ofString(mergePatch)).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
            if (error == null && response.statusCode() == 200) {
                answered.incrementAndGet();
            } else {
                failed.incrementAndGet();
            }
            inFlight.release();
        });
    }
}
