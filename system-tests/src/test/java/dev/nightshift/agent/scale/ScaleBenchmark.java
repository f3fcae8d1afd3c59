package dev.nightshift.agent.scale;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.sandbox.demo.BulkWorkloads;

/**
 * The scale benchmark (issue 16, targets 1 to 4): {@code nightshift sandbox --no-agent} from the built jar with a
 * cluster of {@code scale.nodes} nodes in {@code scale.pools} pools and {@code scale.podsPerNode} pods a node, the
 * agent ({@code nightshift run --provider http}) from the same jar in a JVM of its own with {@code scale.agentHeap}
 * of heap and the serial collector (or {@code scale.agentJvm}'s options instead, e.g. those of a pod with a memory
 * limit), then: ready and every pool reconciled; the heap after a full GC and what it holds;
 * an idle spell and {@code scale.churnSeconds} of churn that cannot change a plan (reconciles, watch events, the
 * agent's CPU); an image bump of {@code scale.rollPools} pools of {@code scale.rollNodes} nodes each, in one commit, to
 * completion (the agent's API requests per replaced node against the minimum, the heap halfway, reconcile time). With
 * more than one pool rolled the Cluster lets them roll at once ({@code rollout.concurrency.pools}) within
 * {@code scale.clusterBudget} ({@code maxUnavailableNodes}); with one, the Cluster is as before fleets. Prints one
 * table; everything it measured is also under {@code scale.dir}. Run by
 * {@code mvn -B -o -pl system-tests -am -Pscale -DskipTests verify}; never by the suite.
 */
public final class ScaleBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String CLUSTER = "scale";
    /** The rolled pool's name when one is rolled; {@code roll-01}, {@code roll-02}… when several are. */
    private static final String ROLL = "roll";
    private static final String OLD_IMAGE = "1631.0.0";
    private static final String NEW_IMAGE = "1632.0.0";
    private static final String RECONCILE = "nightshift_reconcile_duration_seconds";
    private static final String AGENT_USER_AGENT = "nightshift/";

    private final Settings s;
    private final PrintStream out = System.out;
    private final Map<String, String> table = new LinkedHashMap<>();
    private final List<Process> processes = new ArrayList<>();

    /** What to build and how long to measure, from system properties. */
    record Settings(Path jar, Path dir, int nodes, int pools, int rollPools, int rollNodes, String clusterBudget, int podsPerNode,
                    int maxSurge, Duration idle, Duration churn, double heartbeatsPerSecond, double podUpdatesPerSecond, String agentHeap,
                    String sandboxHeap, Duration timeout, List<String> agentJvm) {

        Settings {
            if (rollPools < 1 || rollPools >= pools) {
                throw new IllegalArgumentException("scale.rollPools must be at least 1 and fewer than scale.pools (" + pools + "), got "
                        + rollPools);
            }
            if ((long) rollPools * rollNodes > nodes) {
                throw new IllegalArgumentException("scale.rollPools x scale.rollNodes (" + rollPools + " x " + rollNodes
                        + ") is more than scale.nodes (" + nodes + ")");
            }
        }

        static Settings fromProperties() {
            int nodes = Integer.getInteger("scale.nodes", 5000);
            return new Settings(Path.of(System.getProperty("scale.jar", "../cli/target/nightshift.jar")),
                    Path.of(System.getProperty("scale.dir", "target/scale")), nodes, Integer.getInteger("scale.pools", 200),
                    Integer.getInteger("scale.rollPools", 1), Integer.getInteger("scale.rollNodes", 100),
                    System.getProperty("scale.clusterBudget", "").isBlank() ? "5%" : System.getProperty("scale.clusterBudget").strip(),
                    Integer.getInteger("scale.podsPerNode", 20),
                    Integer.getInteger("scale.maxSurge", 10),
                    Duration.ofSeconds(Integer.getInteger("scale.idleSeconds", 90)),
                    Duration.ofSeconds(Integer.getInteger("scale.churnSeconds", 300)),
                    Double.parseDouble(System.getProperty("scale.heartbeatsPerSecond", "").isBlank() ? Double.toString(nodes / 10.0)
                            : System.getProperty("scale.heartbeatsPerSecond")),
                    Double.parseDouble(System.getProperty("scale.podUpdatesPerSecond", "50")),
                    System.getProperty("scale.agentHeap", "256m"), System.getProperty("scale.sandboxHeap", "6g"),
                    Duration.ofMinutes(Integer.getInteger("scale.timeoutMinutes", 60)),
                    System.getProperty("scale.agentJvm", "").isBlank()
                            ? List.of("-Xmx" + System.getProperty("scale.agentHeap", "256m"), "-XX:+UseSerialGC")
                            : List.of(System.getProperty("scale.agentJvm").strip().split("\\s+")));
        }

        /** The rolled pools' names: {@value #ROLL} alone, as before fleets, or {@code roll-01} to {@code roll-NN}. */
        List<String> rolled() {
            if (rollPools == 1) {
                return List.of(ROLL);
            }
            List<String> names = new ArrayList<>();
            for (int i = 1; i <= rollPools; i++) {
                names.add(String.format(Locale.ROOT, "%s-%02d", ROLL, i));
            }
            return names;
        }

        int rolledNodes() {
            return rollPools * rollNodes;
        }
    }

    ScaleBenchmark(Settings settings) {
        this.s = settings;
    }

    public static void main(String[] args) throws Exception {
        ScaleBenchmark bench = new ScaleBenchmark(Settings.fromProperties());
        // Stopped from outside (Ctrl-C, kill), the sandbox and the agent go too rather than run on without it.
        Runtime.getRuntime().addShutdownHook(new Thread(bench::stop, "scale-stop"));
        try {
            bench.run();
        } finally {
            bench.stop();
        }
        System.exit(0);
    }

    void run() throws Exception {
        Instant begin = Instant.now();
        deleteRecursively(s.dir());
        Path spec = s.dir().resolve("spec");
        Map<String, Integer> pools = writeSpec(spec);
        log("%d nodes in %d pools (rolled: %s, %d nodes each%s), %d pods a node; load average %s", s.nodes(), pools.size(),
                String.join(", ", s.rolled()), s.rollNodes(), s.rollPools() == 1 ? "" : "; at once, cluster budget " + s.clusterBudget(),
                s.podsPerNode(), loadAverage());

        // The cluster.
        Instant seeding = Instant.now();
        Path info = s.dir().resolve("sandbox-info.json");
        Path kubeRequests = s.dir().resolve("kubernetes-requests.jsonl");
        // The machine API double runs on the JDK's HttpServer, which leaves Nagle's algorithm on: each answer then waits
        // ~40 ms for the client's delayed ACK, and the agent, which lists every pool's machines each reconcile, would be
        // measured against a stall no real cloud API has.
        Process sandbox = start("sandbox", List.of("-Xmx" + s.sandboxHeap(), "-Dsun.net.httpserver.nodelay=true", "-jar", s.jar().toString(), "sandbox", "--no-agent",
                "--spec", spec.toString(), "--dir", s.dir().resolve("sandbox").toString(), "--info", info.toString(),
                "--bulk-pods-per-node", Integer.toString(s.podsPerNode()), "--kubernetes-request-log", kubeRequests.toString()));
        await("the sandbox writes " + info, Duration.ofMinutes(30), () -> Files.exists(info), sandbox);
        JsonNode facts = JSON.readTree(info.toFile());
        String api = facts.get("apiServer").asText();
        row("cluster seeded (sandbox --no-agent, pods straight into the store)", seconds(Duration.between(seeding, Instant.now())));

        // The agent.
        Instant starting = Instant.now();
        int port = freePort();
        String agentUrl = "http://127.0.0.1:" + port;
        List<String> agentCommand = new ArrayList<>(s.agentJvm());
        agentCommand.addAll(List.of("-jar", s.jar().toString(), "run",
                "--provider", "http", "--machine-api-url", facts.get("machineApi").asText(), "--machine-api-token-file",
                facts.get("machineApiTokenFile").asText(), "--kubeconfig", facts.get("kubeconfig").asText(), "--repo",
                Path.of(facts.get("repository").asText()).toUri().toString(), "--cluster", CLUSTER, "--http-port",
                Integer.toString(port), "--poll-interval", "2s", "--cache-dir", s.dir().resolve("agent-cache").toString()));
        Process agent = start("agent", agentCommand);
        long pid = agent.pid();
        row("agent JVM options", String.join(" ", s.agentJvm()));
        await("the agent is ready", Duration.ofMinutes(30), () -> get(agentUrl + "/readyz").statusCode() == 200, agent);
        row("agent ready (from start)", seconds(Duration.between(starting, Instant.now())));
        await("every pool reconciled with its nodes", s.timeout(), () -> allReconciled(agentUrl, pools, null), agent);
        row("every pool reconciled, right node counts in /status (from start)", seconds(Duration.between(starting, Instant.now())));
        // Reconciles cut short (a pass starts no step after 1 s) report every pool's nodes current (its phase UPDATING)
        // while the adoption's label propagations still go on, and Events are written after the passes that recorded
        // them: steady state is once the agent has written nothing for a while.
        ApiLog kube = new ApiLog(kubeRequests);
        awaitQuiet(kube, agent);
        row("agent quiet: no write for " + QUIET.toSeconds() + " s (from start)", seconds(Duration.between(starting, Instant.now())));

        // Steady state: the heap, and what it holds.
        long steady = kube.mark();
        Metrics idleStart = scrape(agentUrl);
        row("heap after full GC, steady state", mib(Jvm.heapAfterFullGc(pid)));
        row("agent memory, steady state: " + MEMORY, memory(pid));
        String histogram = Jvm.histogram(pid, 24);
        Files.writeString(s.dir().resolve("histogram-steady.txt"), histogram);
        out.println("jmap -histo:live, steady state:\n" + histogram);

        // Idle, then churn.
        Thread.sleep(s.idle().toMillis());
        Metrics churnStart = scrape(agentUrl);
        row("reconciles while idle (" + s.idle().toSeconds() + " s)", count(churnStart.sum(RECONCILE + "_count") - idleStart.sum(RECONCILE + "_count")));
        List<Churn.Heartbeat> heartbeats = heartbeats(api);
        List<Churn.PodRef> pods = churnPods(pools);
        double agentCpu = Jvm.cpuSeconds(pid);
        double sandboxCpu = Jvm.cpuSeconds(sandbox.pid());
        double ownCpu = Jvm.ownCpuSeconds();
        Churn.Result churn = new Churn(api).run(heartbeats, s.heartbeatsPerSecond(), pods, s.podUpdatesPerSecond(), s.churn());
        double churnMinutes = churn.took().toMillis() / 60_000.0;
        agentCpu = Jvm.cpuSeconds(pid) - agentCpu;
        sandboxCpu = Jvm.cpuSeconds(sandbox.pid()) - sandboxCpu;
        ownCpu = Jvm.ownCpuSeconds() - ownCpu;
        Metrics churnEnd = scrape(agentUrl);
        row("churn sent: heartbeats/s, pod updates/s (asked " + fmt(s.heartbeatsPerSecond()) + ", " + fmt(s.podUpdatesPerSecond())
                + "; failed, not sent)", fmt(churn.heartbeatsPerSecond()) + ", " + fmt(churn.podUpdatesPerSecond()) + " (" + churn.failed()
                + ", " + churn.notSent() + ")");
        double reconciles = churnEnd.sum(RECONCILE + "_count") - churnStart.sum(RECONCILE + "_count");
        row("reconciles per minute during churn (" + seconds(churn.took()) + ")", fmt(reconciles / churnMinutes));
        row("watch events during churn: node ignored / reconcile, pod ignored / reconcile",
                count(delta(churnStart, churnEnd, "node", "ignored")) + " / " + count(delta(churnStart, churnEnd, "node", "reconcile"))
                        + ", " + count(delta(churnStart, churnEnd, "pod", "ignored")) + " / " + count(delta(churnStart, churnEnd, "pod", "reconcile")));
        row("agent CPU during churn (s; % of one core)", fmt(agentCpu) + " (" + fmt(100 * agentCpu / (churn.took().toMillis() / 1000.0)) + "%)");
        row("harness CPU / sandbox CPU during churn (s)", fmt(ownCpu) + " / " + fmt(sandboxCpu));
        row("reconcile time, nothing to do: p50 / p95 (n)", millis(Metrics.quantile(0.5, RECONCILE, idleStart, churnEnd)) + " / "
                + millis(Metrics.quantile(0.95, RECONCILE, idleStart, churnEnd)) + " (" + count(churnEnd.sum(RECONCILE + "_count")
                - idleStart.sum(RECONCILE + "_count")) + ")");
        long churnEndMark = kube.mark();
        List<ApiLog.Request> steadyRequests = kube.between(steady, churnEndMark, n -> n.path("userAgent").asText().startsWith(AGENT_USER_AGENT));
        row("agent's API requests in steady state (idle + churn), LISTs", steadyRequests.size() + ", LIST: "
                + steadyRequests.stream().filter(ApiLog.Request::list).count() + " " + ApiLog.shapes(steadyRequests));

        // The rollout.
        Path machineLog = Path.of(facts.get("machineApiTokenFile").asText()).resolveSibling("machine-api-requests.jsonl");
        ApiLog machines = new ApiLog(machineLog);
        long kubeAtPush = kube.mark();
        long machinesAtPush = machines.mark();
        Metrics rolloutStart = scrape(agentUrl);
        Instant push = Instant.now();
        String commit = pushImageBump(Path.of(facts.get("clone").asText()));
        long[] halfwayHeap = {-1};
        String rolledWhat = s.rollPools() == 1 ? "pool " + ROLL : s.rollPools() + " pools (" + String.join(", ", s.rolled()) + ")";
        await(rolledWhat + " rolled to " + NEW_IMAGE, s.timeout(), () -> {
            List<JsonNode> rolled = rolledPools(agentUrl, commit);
            int current = rolled.stream().mapToInt(p -> p.path("current").asInt()).sum();
            if (rolled.size() == s.rollPools() && halfwayHeap[0] < 0 && current >= s.rolledNodes() / 2) {
                try {
                    halfwayHeap[0] = Jvm.heapAfterFullGc(pid);
                    row("agent memory, halfway through the rollout: " + MEMORY, memory(pid));
                    log("heap after full GC with %d of %d nodes current: %s", current, s.rolledNodes(), mib(halfwayHeap[0]));
                    Files.writeString(s.dir().resolve("histogram-rollout.txt"), Jvm.histogram(pid, 24));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return rolled.size() == s.rollPools() && rolled.stream().allMatch(p -> done(p, s.rollNodes()));
        }, agent);
        Duration rollout = Duration.between(push, Instant.now());
        Metrics rolloutEnd = scrape(agentUrl);
        List<ApiLog.Request> rolloutRequests = kube.between(kubeAtPush, kube.mark(),
                n -> n.path("userAgent").asText().startsWith(AGENT_USER_AGENT));
        List<ApiLog.Request> machineRequests = machines.between(machinesAtPush, machines.mark(),
                n -> !"held".equals(n.path("phase").asText()));
        int replaced = s.rolledNodes();
        row("rollout of " + (s.rollPools() == 1 ? "" : s.rollPools() + " pools at once (cluster budget maxUnavailableNodes "
                + s.clusterBudget() + ") x ") + s.rollNodes() + " nodes (maxSurge " + s.maxSurge() + ", maxUnavailable 0), push to done",
                seconds(rollout));
        row("heap after full GC, halfway through the rollout", halfwayHeap[0] < 0 ? "not measured" : mib(halfwayHeap[0]));
        int evictable = s.podsPerNode() - BulkWorkloads.DAEMON_SETS;
        int minimum = 1 + 1 + evictable + 2 + 1;
        long kubeWrites = rolloutRequests.stream().filter(r -> !r.method().equals("GET")).count();
        row("agent's Kubernetes requests during the rollout, per replaced node (all; writes)",
                fmt(rolloutRequests.size() / (double) replaced) + "; " + fmt(kubeWrites / (double) replaced));
        row("agent's machine API requests per replaced node", fmt(machineRequests.size() / (double) replaced));
        row("minimum per replaced node: taint + cordon + " + evictable + " evictions + create + delete machine + stamp",
                Integer.toString(minimum));
        row("Kubernetes requests during the rollout by kind", ApiLog.shapes(rolloutRequests).toString());
        row("machine API requests during the rollout by kind", ApiLog.shapes(machineRequests).toString());
        row("LISTs by the agent during the rollout", Long.toString(rolloutRequests.stream().filter(ApiLog.Request::list).count()));
        row("reconcile time during the rollout: p50 / p95 (n)", millis(Metrics.quantile(0.5, RECONCILE, rolloutStart, rolloutEnd))
                + " / " + millis(Metrics.quantile(0.95, RECONCILE, rolloutStart, rolloutEnd)) + " (" + count(rolloutEnd.sum(RECONCILE + "_count")
                - rolloutStart.sum(RECONCILE + "_count")) + ")");
        // From the histogram's buckets: the timer's max gauge spans two minutes, reconciles from before the push included.
        double twoSeconds = rolloutEnd.bucketAtMost(RECONCILE, 2.2);
        row("reconciles during the rollout that took at most " + millis(twoSeconds) + " (the histogram's bucket)",
                fmt(100 * Metrics.shareAtMost(twoSeconds, RECONCILE, rolloutStart, rolloutEnd)) + "%");
        row("longest reconcile during the rollout: at most (the histogram's bucket)",
                millis(Metrics.longestAtMost(RECONCILE, rolloutStart, rolloutEnd)));
        row("agent memory, after the rollout (before its full GC): " + MEMORY, memory(pid));
        row("heap after full GC, after the rollout", mib(Jvm.heapAfterFullGc(pid)));
        row("agent alive at the end; wall time of the benchmark", agent.isAlive() + "; " + seconds(Duration.between(begin, Instant.now())));
        row("load average at the end", loadAverage());
        printTable();
    }

    private static final Duration QUIET = Duration.ofSeconds(10);

    /** Until the agent has sent no write (anything but GET and watches) for {@link #QUIET}. */
    private void awaitQuiet(ApiLog kube, Process agent) throws Exception {
        long[] from = {kube.mark()};
        Instant[] since = {Instant.now()};
        await("the agent writes nothing for " + QUIET.toSeconds() + " s", s.timeout(), () -> {
            long to = kube.mark();
            boolean wrote = !kube.between(from[0], to, n -> n.path("userAgent").asText().startsWith(AGENT_USER_AGENT)
                    && !"GET".equals(n.path("method").asText())).isEmpty();
            from[0] = to;
            if (wrote) {
                since[0] = Instant.now();
            }
            return Duration.between(since[0], Instant.now()).compareTo(QUIET) >= 0;
        }, agent);
    }

    /**
     * The spec: a Cluster, the rolled pools of {@code rollNodes} each and the rest spread over the other pools. Several
     * pools rolled: the Cluster lets that many roll at once within the cluster budget.
     */
    private Map<String, Integer> writeSpec(Path spec) throws IOException {
        Files.createDirectories(spec.resolve("pools"));
        String concurrency = s.rollPools() == 1 ? ""
                : "  rollout: {concurrency: {pools: %d, maxUnavailableNodes: \"%s\"}}\n".formatted(s.rollPools(), s.clusterBudget());
        Files.writeString(spec.resolve("cluster.yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: %s}
                spec:
                  kubernetes: {version: "1.31.4"}
                """.formatted(CLUSTER) + concurrency);
        Map<String, Integer> pools = new LinkedHashMap<>();
        s.rolled().forEach(name -> pools.put(name, s.rollNodes()));
        int others = s.pools() - s.rollPools();
        int rest = s.nodes() - s.rolledNodes();
        for (int i = 1; i <= others; i++) {
            pools.put(String.format(Locale.ROOT, "pool-%03d", i), rest / others + (i <= rest % others ? 1 : 0));
        }
        for (Map.Entry<String, Integer> p : pools.entrySet()) {
            Files.writeString(spec.resolve("pools/" + p.getKey() + ".yaml"), poolSpec(p.getKey(), p.getValue(), OLD_IMAGE));
        }
        return pools;
    }

    private String poolSpec(String name, int nodes, String image) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: %s}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: %d
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(name, CLUSTER, nodes, nodes + s.maxSurge(), s.maxSurge(), image);
    }

    /** Commits the image bump of every rolled pool, in one commit, in the sandbox's clone and pushes it with the real git; returns the commit. */
    private String pushImageBump(Path clone) throws IOException, InterruptedException {
        for (String pool : s.rolled()) {
            Files.writeString(clone.resolve("pools/" + pool + ".yaml"), poolSpec(pool, s.rollNodes(), NEW_IMAGE));
        }
        git(clone, "add", "-A");
        git(clone, "commit", "-q", "-m", "image bump of " + String.join(", ", s.rolled()));
        git(clone, "push", "-q");
        return git(clone, "rev-parse", "HEAD").strip();
    }

    private String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=scale benchmark", "-c", "user.email=scale@nightshift.dev"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        Process git = builder.start();
        String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!git.waitFor(60, TimeUnit.SECONDS) || git.exitValue() != 0) {
            throw new IOException("git " + String.join(" ", args) + " failed: " + output);
        }
        return output;
    }

    /** Every pool in {@code /status} with its node count, all current, nothing outdated or updating. */
    private boolean allReconciled(String agentUrl, Map<String, Integer> pools, String commit) throws IOException, InterruptedException {
        JsonNode status = status(agentUrl);
        if (status == null || (commit != null && !commit.equals(status.path("revision").asText()))) {
            return false;
        }
        int good = 0;
        for (JsonNode p : status.path("pools")) {
            Integer expected = pools.get(p.path("pool").asText());
            if (expected != null && done(p, expected)) {
                good++;
            }
        }
        return good == pools.size();
    }

    private static boolean done(JsonNode pool, int nodes) {
        return pool.path("nodes").asInt() == nodes && pool.path("current").asInt() == nodes && pool.path("outdated").asInt() == 0
                && pool.path("updating").asInt() == 0 && pool.path("failed").asInt() == 0;
    }

    /** The rolled pools' entries in {@code /status} once the agent acts on {@code commit}; none before. */
    private List<JsonNode> rolledPools(String agentUrl, String commit) throws IOException, InterruptedException {
        JsonNode status = status(agentUrl);
        if (status == null || !commit.equals(status.path("revision").asText())) {
            return List.of();
        }
        List<String> names = s.rolled();
        List<JsonNode> rolled = new ArrayList<>();
        for (JsonNode p : status.path("pools")) {
            if (names.contains(p.path("pool").asText())) {
                rolled.add(p);
            }
        }
        return rolled;
    }

    private JsonNode status(String agentUrl) throws IOException, InterruptedException {
        HttpResponse<String> response = get(agentUrl + "/status");
        return response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
    }

    /** Every node with its Ready condition's transition time, from one LIST (the churn's, not the agent's). */
    private List<Churn.Heartbeat> heartbeats(String api) throws IOException, InterruptedException {
        JsonNode list = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(api + "/api/v1/nodes"))
                .header("User-Agent", Churn.USER_AGENT).build(), HttpResponse.BodyHandlers.ofString()).body());
        List<Churn.Heartbeat> nodes = new ArrayList<>();
        for (JsonNode n : list.path("items")) {
            for (JsonNode c : n.path("status").path("conditions")) {
                if ("Ready".equals(c.path("type").asText())) {
                    nodes.add(new Churn.Heartbeat(n.path("metadata").path("name").asText(), c.path("lastTransitionTime").asText()));
                }
            }
        }
        return nodes;
    }

    /** Every pod of the pools not rolled (their nodes are never in flight), by the names the sandbox gave them. */
    private List<Churn.PodRef> churnPods(Map<String, Integer> pools) {
        List<Churn.PodRef> pods = new ArrayList<>();
        List<String> rolled = s.rolled();
        pools.forEach((pool, nodes) -> {
            if (!rolled.contains(pool)) {
                for (int i = 1; i <= nodes; i++) {
                    for (int j = 0; j < s.podsPerNode(); j++) {
                        pods.add(new Churn.PodRef(j < BulkWorkloads.DAEMON_SETS ? BulkWorkloads.SYSTEM : BulkWorkloads.namespace(pool),
                                pool + "-" + i + "-" + j));
                    }
                }
            }
        });
        return pods;
    }

    private static double delta(Metrics before, Metrics after, String kind, String effect) {
        Map<String, String> labels = Map.of("kind", kind, "effect", effect);
        return after.sum("nightshift_watch_events_total", labels) - before.sum("nightshift_watch_events_total", labels);
    }

    private static Metrics scrape(String agentUrl) throws IOException, InterruptedException {
        return Metrics.parse(get(agentUrl + "/metrics").body());
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private void await(String what, Duration atMost, Check check, Process process) throws Exception {
        Instant deadline = Instant.now().plus(atMost);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("waiting for " + what + ": the process ended (exit " + process.exitValue()
                        + "); see " + s.dir());
            }
            try {
                if (check.holds()) {
                    return;
                }
            } catch (IOException e) {
                // not answering yet
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("waited " + atMost + " for " + what + "; see " + s.dir());
            }
            Thread.sleep(1000);
        }
    }

    private Process start(String name, List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(args);
        Files.createDirectories(s.dir());
        Files.writeString(s.dir().resolve(name + ".command"), String.join(" ", command) + "\n");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(s.dir().resolve(name + ".out").toFile()).start();
        processes.add(p);
        log("started %s, pid %d", name, p.pid());
        return p;
    }

    synchronized void stop() {
        for (Process p : processes.stream().sorted(java.util.Comparator.comparing(Process::pid).reversed()).toList()) {
            p.destroy();
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private void row(String what, String value) {
        table.put(what, value);
        log("%s: %s", what, value);
    }

    private void printTable() throws IOException {
        StringBuilder t = new StringBuilder("| measured | value |\n|---|---|\n");
        table.forEach((k, v) -> t.append("| ").append(k).append(" | ").append(v.replace("|", "\\|")).append(" |\n"));
        Files.writeString(s.dir().resolve("results.md"), t.toString());
        out.println();
        out.print(t);
    }

    private void log(String format, Object... args) {
        out.printf(Locale.ROOT, "[%s] %s%n", Instant.now().toString().substring(11, 19), String.format(Locale.ROOT, format, args));
        out.flush();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip().split(" ", 4)[0] + " (1 min)";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static final String MEMORY = "RSS / peak RSS (VmRSS / VmHWM) / heap committed";

    private static String memory(long pid) throws IOException, InterruptedException {
        Jvm.Memory m = Jvm.memory(pid);
        return mib(m.rss()) + " / " + mib(m.peakRss()) + " / " + mib(m.heapCommitted());
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.0f s", d.toMillis() / 1000.0);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1024.0 / 1024.0);
    }

    private static String millis(double seconds) {
        return Double.isNaN(seconds) ? "n/a" : String.format(Locale.ROOT, "%.1f ms", seconds * 1000);
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String count(double value) {
        return String.format(Locale.ROOT, "%.0f", value);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
