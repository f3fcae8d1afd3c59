package dev.nightshift.agent.run;

import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.Secret;
import dev.nightshift.agent.http.WebhookVerifier;
import dev.nightshift.sandbox.embedded.RecordedRequest;

/**
 * On demand, never in CI: how long a pushed change takes to reach the cluster through the Git
 * webhook. A real agent (git daemon, embedded API, simulated cloud, as {@link AgentHarness} sets
 * them up) polls only once an hour, in a window that is always open; each round pushes a new value
 * of a pool label with the real {@code git}, then sends {@code POST /hooks/git} as GitHub does, and
 * takes the time from the push returning to the first node PATCH the embedded API server received
 * from the agent (the propagation of the label: the first step). The times are the API server's
 * own, in this JVM, so they include everything the agent does in between: the webhook, the poll,
 * loading the specs, the reconcile and its plan.
 *
 * <p>Run: {@code mvn -B -o -q -pl agent -am -Pbench-git -DskipTests test
 * -Dbench.main=dev.nightshift.agent.run.GitWebhookLatencyBenchmark} (the first argument, default
 * 10, is the number of pushes).
 */
public final class GitWebhookLatencyBenchmark {

    static final Duration TARGET = Duration.ofSeconds(1);
    private static final String SECRET = "bench-hook-secret";
    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: bench}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
            """;

    private GitWebhookLatencyBenchmark() {
    }

    private static String pool(int revision) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: bench}
                spec:
                  minimum: 3
                  maximum: 6
                  labels: {example.com/revision: "r%d"}
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(revision);
    }

    public static void main(String[] args) throws Exception {
        int pushes = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 10;
        Path tmp = Files.createTempDirectory("nightshift-hookbench");
        HttpClient http = HttpClient.newHttpClient();
        List<Duration> answered = new ArrayList<>();
        List<Duration> firstStep = new ArrayList<>();
        List<Duration> polls = new ArrayList<>();
        try (AgentHarness h = new AgentHarness(tmp, "bench", "web", 3)) {
            h.work.write("cluster.yaml", CLUSTER);
            h.work.write("pools/web.yaml", pool(0));
            h.work.commitAndPush("initial");
            Path secretFile = Files.writeString(tmp.resolve("webhook-secret"), SECRET);
            WebhookVerifier signer = new WebhookVerifier(Secret.fromFile(secretFile));
            h.startAgent("bench", config -> config.with(new AgentConfig.Overrides(Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of(Duration.ofHours(1)), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()))
                    .with(AgentConfig.Webhook.secretFile(secretFile)));
            h.awaitAdopted("web", 3);
            awaitLabel(h, "r0");
            System.out.printf(Locale.ROOT, "%d pushes; load average at start %s%n%n", pushes, loadAverage());
            System.out.println("| push | hook answered (ms) | poll (ms) | first step (ms) |");
            System.out.println("|---|---|---|---|");
            for (int i = 1; i <= pushes; i++) {
                h.work.write("pools/web.yaml", pool(i));
                h.work.commitAndPush("revision " + i);
                double pollSeconds = pollSeconds(h);
                Instant pushed = Instant.now();
                byte[] payload = ("{\"ref\":\"refs/heads/main\",\"after\":\"r" + i + "\"}").getBytes(StandardCharsets.UTF_8);
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + h.agent.httpPort() + "/hooks/git"))
                        .header("X-GitHub-Event", "push").header(WebhookVerifier.GITHUB_SIGNATURE, signer.sign(payload))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofString());
                Duration hook = Duration.between(pushed, Instant.now());
                if (response.statusCode() != 202) {
                    throw new IllegalStateException("the hook answered " + response.statusCode() + ": " + response.body());
                }
                String value = "r" + i;
                RecordedRequest step = await("the label " + value + " patched onto a node").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(20)).until(() -> firstPatch(h, pushed, value), Optional::isPresent).orElseThrow();
                Duration latency = Duration.between(pushed, step.time());
                // Every node carries it before the next push, so that each round starts from a quiet agent.
                awaitLabel(h, value);
                Duration poll = Duration.ofNanos((long) ((pollSeconds(h) - pollSeconds) * 1e9));
                answered.add(hook);
                firstStep.add(latency);
                polls.add(poll);
                System.out.printf(Locale.ROOT, "| %d | %.1f | %.1f | %.1f |%n", i, millis(hook), millis(poll), millis(latency));
            }
        }
        System.out.printf(Locale.ROOT, "| p50 | %.1f | %.1f | %.1f |%n", millis(p50(answered)), millis(p50(polls)), millis(p50(firstStep)));
        System.out.printf(Locale.ROOT, "| max | %.1f | %.1f | %.1f |%n", millis(max(answered)), millis(max(polls)), millis(max(firstStep)));
        System.out.printf(Locale.ROOT, "%nload average at end %s%n", loadAverage());
        if (max(firstStep).compareTo(TARGET) >= 0) {
            System.out.println("a push took " + TARGET.toMillis() + " ms or more to reach the cluster");
            System.exit(1);
        }
    }

    /** The first node PATCH of the agent since {@code after} that sets the label to {@code value}. */
    private static Optional<RecordedRequest> firstPatch(AgentHarness h, Instant after, String value) {
        return h.kube.requests().stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT) && r.method().equals("PATCH")
                        && r.resourcePath().startsWith("/api/v1/nodes/") && !r.time().isBefore(after)
                        && r.body().contains("\"example.com/revision\":\"" + value + "\""))
                .findFirst();
    }

    private static void awaitLabel(AgentHarness h, String value) {
        await().atMost(Duration.ofSeconds(60)).until(() -> h.nodes("web").stream()
                .allMatch(n -> value.equals(n.getMetadata().getLabels().get("example.com/revision"))));
    }

    /** The time the agent spent in polls that handed on a new spec, so far. */
    private static double pollSeconds(AgentHarness h) throws Exception {
        return new Scrape(h.http("/metrics")).valueOrZero("nightshift_git_poll_duration_seconds_sum", Map.of("result", "new_spec"));
    }

    private static double millis(Duration d) {
        return d.toNanos() / 1e6;
    }

    private static Duration p50(List<Duration> xs) {
        List<Duration> sorted = xs.stream().sorted().toList();
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static Duration max(List<Duration> xs) {
        return xs.stream().max(Duration::compareTo).orElseThrow();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
