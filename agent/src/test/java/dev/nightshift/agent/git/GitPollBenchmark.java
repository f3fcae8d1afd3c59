package dev.nightshift.agent.git;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.nightshift.spec.load.SpecLoader;

/**
 * On demand, never in CI: the cost of an unchanged poll, side by side with {@code git ls-remote} on
 * the same repository, for {@code file://}, {@code git://} (a real {@code git daemon}) and
 * {@code https://} (JGit's GitServlet on Jetty, a certificate of a CA made for the run, a token).
 *
 * <p>Three ways, measured in turns so that the machine's load falls on each alike:
 * <ul>
 *   <li>{@code agent}: {@link SpecPoller#poll()} on a {@link GitSource} built as the agent builds it
 *       (its credentials, CA file, timeout), after a first poll fetched the commit; each measured
 *       poll must answer {@link PollResult#UNCHANGED}.</li>
 *   <li>{@code git process}: {@code git ls-remote <url> main} started from here as a process, its
 *       start included.</li>
 *   <li>{@code git in one shell}: {@code for i in ...; do git ls-remote <url> main; done} in one
 *       {@code sh}, the loop's wall time divided by its length (no JVM process start per call).</li>
 * </ul>
 * Each measures {@code rounds} rounds of {@code batch} calls after {@code warmup} rounds; a round's
 * figure is its mean per call, and the result is the mean over rounds ± the half-width of the
 * 99.9% confidence interval (Student's t, as JMH reports). Exit 1 if the agent's poll costs more
 * than {@value #TARGET} × either {@code git} figure for some transport.
 *
 * <p>Run: {@code mvn -B -o -q -pl agent -am -Pbench-git -DskipTests test}
 */
public final class GitPollBenchmark {

    static final double TARGET = 1.5;
    private static final int TRAFFIC_SAMPLE = 10;
    private static final String USER = "nightshift";
    private static final String TOKEN = "bench-token-6f1c";
    private static final String SPEC = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: bench}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    /** How one way of asking is timed: {@code calls} calls, returning the wall time of all, in nanoseconds. */
    @FunctionalInterface
    private interface Way {
        long time(int calls) throws Exception;
    }

    private GitPollBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 5;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Path tmp = Files.createTempDirectory("nightshift-gitbench");
        Path base = Files.createDirectories(tmp.resolve("served"));
        // A git of its own: no user or system configuration of the machine changes what is measured.
        Path home = Files.createDirectories(tmp.resolve("home"));
        GitWork work = GitWork.create(base, "specs.git", base.resolve("specs.git").toUri().toString(), tmp.resolve("work"));
        work.write("cluster.yaml", SPEC);
        String commit = work.commitAndPush("first");
        TestCertificates certificates = new TestCertificates(Files.createDirectories(tmp.resolve("pki")));
        Path caPem = certificates.ca("bench-ca");
        Path tokenFile = Files.writeString(tmp.resolve("token"), TOKEN);
        System.out.printf(Locale.ROOT, "commit %s; %d warm-up and %d measured rounds of %d calls each; load average at start %s%n%n",
                commit, warmup, rounds, batch, loadAverage());
        System.out.println("| transport | agent's unchanged poll (ms) | `git ls-remote` as a process (ms) | `git ls-remote` in one shell (ms) | agent / process | agent / shell |");
        System.out.println("|---|---|---|---|---|---|");
        List<String> misses = new ArrayList<>();
        List<String> traffic = new ArrayList<>();
        try (GitDaemon daemon = new GitDaemon(base);
             HttpGitServer https = HttpGitServer.https(base, USER, TOKEN, certificates.server("bench-ca"), TestCertificates.PASSWORD)) {
            String file = base.resolve("specs.git").toUri().toString();
            row("file://", file, file, new GitCredentials.None(), Optional.empty(), Map.of("HOME", home.toString()),
                    tmp, warmup, rounds, batch, misses, traffic, Optional.empty());
            row("git://", daemon.url("specs.git"), daemon.url("specs.git"), new GitCredentials.None(), Optional.empty(),
                    Map.of("HOME", home.toString()), tmp, warmup, rounds, batch, misses, traffic, Optional.empty());
            // git gets the token in the URL (as a credential helper would hand it over) and the same CA.
            String url = https.url("specs.git");
            row("https://", url, url.replace("https://", "https://" + USER + ":" + TOKEN + "@"),
                    new GitCredentials.HttpsToken(USER, Secret.fromFile(tokenFile)), Optional.of(caPem),
                    Map.of("HOME", home.toString(), "GIT_SSL_CAINFO", caPem.toString()), tmp, warmup, rounds, batch, misses, traffic,
                    Optional.of(https));
        }
        System.out.println();
        traffic.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "%nload average at end %s%n", loadAverage());
        if (!misses.isEmpty()) {
            System.out.println("over " + TARGET + "x: " + String.join(", ", misses));
            System.exit(1);
        }
    }

    private static void row(String transport, String agentUrl, String gitUrl, GitCredentials credentials, Optional<Path> caFile,
                            Map<String, String> gitEnvironment, Path tmp, int warmup, int rounds, int batch, List<String> misses, List<String> traffic,
                            Optional<HttpGitServer> server) throws Exception {
        Path cache = Files.createTempDirectory(tmp, "cache");
        GitSourceConfig config = new GitSourceConfig(URI.create(agentUrl), "main", "", credentials, cache, caFile);
        try (GitSource source = new GitSource(config)) {
            SpecPoller poller = new SpecPoller(source, new SpecLoader(), Optional.of("bench"), new RecordingListener(), Clock.systemUTC());
            PollResult first = poller.poll();
            if (first != PollResult.NEW_SPEC) {
                throw new IllegalStateException(transport + ": the first poll answered " + first);
            }
            Way agent = calls -> {
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    PollResult result = poller.poll();
                    if (result != PollResult.UNCHANGED) {
                        throw new IllegalStateException(transport + ": an unchanged poll answered " + result);
                    }
                }
                return System.nanoTime() - start;
            };
            Way process = calls -> {
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    run(gitEnvironment, "git", "ls-remote", gitUrl, "main");
                }
                return System.nanoTime() - start;
            };
            Way shell = calls -> {
                long start = System.nanoTime();
                run(Map.of("HOME", gitEnvironment.get("HOME"), "GIT_SSL_CAINFO", gitEnvironment.getOrDefault("GIT_SSL_CAINFO", ""),
                        "URL", gitUrl, "N", Integer.toString(calls)),
                        "sh", "-c", "i=0; while [ $i -lt $N ]; do git ls-remote \"$URL\" main >/dev/null || exit 1; i=$((i+1)); done");
                return System.nanoTime() - start;
            };
            List<Way> ways = List.of(agent, process, shell);
            List<List<Double>> perCall = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int r = 0; r < warmup + rounds; r++) {
                for (int w = 0; w < ways.size(); w++) {
                    double ms = ways.get(w).time(batch) / 1e6 / batch;
                    if (r >= warmup) {
                        perCall.get(w).add(ms);
                    }
                }
            }
            if (server.isPresent()) {
                traffic.add(transport + " per call, agent's unchanged poll: " + traffic(server.get(), agent)
                        + "; git ls-remote: " + traffic(server.get(), process));
            }
            double[] means = perCall.stream().mapToDouble(GitPollBenchmark::mean).toArray();
            System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %.2f | %.2f |%n", transport, figure(perCall.get(0)),
                    figure(perCall.get(1)), figure(perCall.get(2)), means[0] / means[1], means[0] / means[2]);
            if (means[0] > TARGET * means[1] || means[0] > TARGET * means[2]) {
                misses.add(transport);
            }
        }
    }

    /** What the server saw of one call, over {@value #TRAFFIC_SAMPLE} calls. */
    private static String traffic(HttpGitServer server, Way way) throws Exception {
        int requests = server.requests.get();
        int connections = server.connections.get();
        way.time(TRAFFIC_SAMPLE);
        return String.format(Locale.ROOT, "%.1f requests, %.1f connections (TLS handshakes)",
                (server.requests.get() - requests) / (double) TRAFFIC_SAMPLE, (server.connections.get() - connections) / (double) TRAFFIC_SAMPLE);
    }

    private static void run(Map<String, String> environment, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(environment);
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_TERMINAL_PROMPT", "0");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
    }

    private static double mean(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    /** Mean ± the half-width of the 99.9% confidence interval. */
    private static String figure(List<Double> xs) {
        double mean = mean(xs);
        double variance = xs.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / (xs.size() - 1);
        double error = studentT999(xs.size() - 1) * Math.sqrt(variance / xs.size());
        return String.format(Locale.ROOT, "%.2f ± %.2f", mean, error);
    }

    /** Two-sided 99.9% quantile of Student's t for {@code df} degrees of freedom (as JMH's error). */
    private static double studentT999(int df) {
        double[] table = {636.62, 31.60, 12.92, 8.61, 6.87, 5.96, 5.41, 5.04, 4.78, 4.59, 4.44, 4.32, 4.22, 4.14, 4.07, 4.01,
            3.97, 3.92, 3.88, 3.85, 3.82, 3.79, 3.77, 3.75, 3.73, 3.71, 3.69, 3.67, 3.66, 3.65};
        return df <= table.length ? table[df - 1] : 3.29;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
