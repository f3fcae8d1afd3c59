package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.NodeBuilder;

/**
 * The CI examples in {@code examples/ci/} run as written: their shell steps, taken from the YAML,
 * run with bash against a checkout made as the CI makes it, the shaded jar, a kubeconfig of the
 * embedded cluster, and (for GitLab) a notes API on loopback, driven by the real {@code curl} and
 * {@code jq}. Both scripts are clean under {@code shellcheck} ({@code ./verify} installs it and jq).
 */
class CiExamplesIT {

    private static final Path EXAMPLES = Path.of(System.getProperty("nightshift.examples", "../examples"));
    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "../cli/target/nightshift.jar"));
    private static final Path GITHUB = EXAMPLES.resolve("ci/github/nightshift-diff.yml");
    private static final Path GITLAB = EXAMPLES.resolve("ci/gitlab/.gitlab-ci.yml");

    @TempDir
    Path tmp;

    private Path origin;
    private String base;
    private String bump;
    private String downgrade;
    private String typo;

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes: {version: "1.31.4"}
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0}
                - {version: 1632.0.0}
            """;

    private static final String WEB = """
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: prod}
            spec:
              minimum: 2
              maximum: 3
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    /** main: the base; branches bump (image), downgrade (Kubernetes, rejected) and typo (invalid), each off the base. */
    @BeforeEach
    void buildTheRepository() throws Exception {
        origin = Files.createDirectories(tmp.resolve("origin"));
        git(origin, "init", "-q", "-b", "main");
        write(origin, "specs/cluster.yaml", CLUSTER);
        write(origin, "specs/pools/web.yaml", WEB);
        base = commit(origin, "base");
        bump = branch("bump", "specs/pools/web.yaml", WEB.replace("version: 1631.0.0}", "version: 1632.0.0}"));
        downgrade = branch("downgrade", "specs/cluster.yaml", CLUSTER.replace("\"1.31.4\"", "\"1.30.9\""));
        typo = branch("typo", "specs/pools/web.yaml", WEB.replace("maximum: 3", "maximum: three"));
        write(origin, "specs/pools/late.yaml", WEB.replace("name: web", "name: late"));
        commit(origin, "a pool on main after the branches");
    }

    private String branch(String name, String file, String content) throws Exception {
        git(origin, "checkout", "-q", "-b", name, base);
        write(origin, file, content);
        String head = commit(origin, name);
        git(origin, "checkout", "-q", "main");
        return head;
    }

    // ---- GitHub Actions ----------------------------------------------------------------------

    @Test
    void githubCommentsWithNodeCountsFromTheClusterAndPassesTheGate() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            DesiredPool web = new SpecLoader().load(origin.resolve("specs")).specs().resolvedPools("prod").stream()
                    .map(DesiredPool::of).filter(p -> p.name().equals("web")).findFirst().orElseThrow();
            for (String name : List.of("web-1", "web-2")) {
                kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(name).addToLabels(NodeMarks.POOL, "web")
                        .addToAnnotations(NodeMarks.hashes(web.rollHash(), web.kubeletHash())).endMetadata().build()).create();
            }
            String kubeconfig = Files.readString(kube.writeKubeconfig(tmp.resolve("kubeconfig")));

            Path runnerTemp = githubCheckout("bump");
            Run diff = githubStep("diff", runnerTemp, Map.of("HEAD_SHA", bump, "BASE_REF", "main", "KUBECONFIG_CONTENT", kubeconfig));

            assertThat(diff.exitCode()).as(diff.output()).isZero();
            assertThat(Files.readString(runnerTemp.resolve("diff.md")))
                    .startsWith("<!-- nightshift-diff -->\n### Nightshift: 1 pool changes\n\nCompared `" + base.substring(0, 12)
                            + "` (where it branched off `origin/main`) → `" + bump.substring(0, 12) + "`.")
                    .contains("**web** · ROLL · 2 nodes replaced (of 2 in the cluster)")
                    // The ETA of the nodes counted in the cluster; no window configured, so done by a time.
                    .contains("\n**ETA** (pools roll one at a time, in role order):\n- web: 2 nodes replaced, ~")
                    .containsPattern("- web: 2 nodes replaced, ~\\d+m of work, done by \\w{3} \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} \\(UTC\\)\n")
                    .doesNotContain("late");
            assertThat(githubOutput(runnerTemp)).containsEntry("code", "0");
            assertThat(githubStep("Gate on the decision", runnerTemp, Map.of("CODE", "0")).exitCode()).isZero();
        }
    }

    @Test
    void githubFailsTheGateOnARejectedChangeAfterCommentingIt() throws Exception {
        Path runnerTemp = githubCheckout("downgrade");
        Run diff = githubStep("diff", runnerTemp, Map.of("HEAD_SHA", downgrade, "BASE_REF", "main", "KUBECONFIG_CONTENT", ""));

        assertThat(diff.exitCode()).as("the step itself succeeds, so that the comment is posted: %s", diff.output()).isZero();
        assertThat(Files.readString(runnerTemp.resolve("diff.md"))).contains("> [!CAUTION]")
                .contains("`spec.kubernetes.version`: `1.31.4` → `1.30.9`: Kubernetes cannot be downgraded");
        String code = githubOutput(runnerTemp).get("code");
        assertThat(code).isEqualTo("3");
        Run gate = githubStep("Gate on the decision", runnerTemp, Map.of("CODE", code));
        assertThat(gate.exitCode()).isEqualTo(3);
        assertThat(gate.output()).contains("::error::a change is rejected");
    }

    @Test
    void githubStepsAreCleanUnderShellcheck() throws Exception {
        for (String step : List.of("diff", "Gate on the decision")) {
            Path script = Files.writeString(tmp.resolve("step.sh"), githubScript(step));
            Run run = exec(List.of(tool("shellcheck").toString(), "-s", "bash", script.toString()), Map.of(), tmp);
            assertThat(run.output()).as("shellcheck on the step " + step).isEmpty();
        }
    }

    /**
     * A checkout as actions/checkout makes one for a pull request with {@code fetch-depth: 0}: every
     * branch as {@code refs/remotes/origin/*}, no {@code origin/HEAD}, HEAD detached at the merge of
     * the pull request into its base. Returns the runner's temp directory, with the jar in it.
     */
    private Path githubCheckout(String branch) throws Exception {
        git(origin, "checkout", "-q", "--detach", "main");
        git(origin, "-c", "user.email=ci@nightshift.dev", "-c", "user.name=ci", "merge", "-q", "--no-edit", branch);
        git(origin, "update-ref", "refs/pull/1/merge", "HEAD");
        git(origin, "checkout", "-q", "main");
        Path work = Files.createDirectories(tmp.resolve("work"));
        git(work, "init", "-q");
        git(work, "remote", "add", "origin", origin.toString());
        git(work, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/pull/1/merge:refs/remotes/pull/1/merge");
        git(work, "checkout", "-q", "--detach", "refs/remotes/pull/1/merge");
        Path runnerTemp = Files.createDirectories(tmp.resolve("runner-temp"));
        Files.copy(JAR, runnerTemp.resolve("nightshift.jar"));
        return runnerTemp;
    }

    private Run githubStep(String idOrName, Path runnerTemp, Map<String, String> env) throws Exception {
        Map<String, String> all = new HashMap<>(env);
        all.put("RUNNER_TEMP", runnerTemp.toString());
        all.put("GITHUB_OUTPUT", runnerTemp.resolve("github-output").toString());
        // As GitHub runs a step's script: bash --noprofile --norc -eo pipefail {0}.
        Path script = Files.writeString(runnerTemp.resolve("step.sh"), githubScript(idOrName));
        return exec(List.of("bash", "--noprofile", "--norc", "-eo", "pipefail", script.toString()), all, tmp.resolve("work"));
    }

    @SuppressWarnings("unchecked")
    private static String githubScript(String idOrName) throws IOException {
        Map<String, Object> workflow = new Yaml().load(Files.readString(GITHUB));
        Map<String, Object> job = (Map<String, Object>) ((Map<String, Object>) workflow.get("jobs")).get("diff");
        for (Map<String, Object> step : (List<Map<String, Object>>) job.get("steps")) {
            if (idOrName.equals(step.get("id")) || idOrName.equals(step.get("name"))) {
                return (String) step.get("run");
            }
        }
        throw new AssertionError("no step " + idOrName + " in " + GITHUB);
    }

    private static Map<String, String> githubOutput(Path runnerTemp) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(runnerTemp.resolve("github-output"))) {
            out.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
        }
        return out;
    }

    // ---- GitLab CI ---------------------------------------------------------------------------

    /** The notes of one merge request, as GitLab's API keeps them. */
    private static final class NotesApi implements AutoCloseable {
        final HttpServer server;
        final List<String> requests = new CopyOnWriteArrayList<>();
        final Map<Integer, String> notes = new LinkedHashMap<>();

        NotesApi() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/api/v4/projects/7/merge_requests/3/notes", this::handle);
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v4";
        }

        private synchronized void handle(HttpExchange exchange) throws IOException {
            String token = exchange.getRequestHeaders().getFirst("PRIVATE-TOKEN");
            String path = exchange.getRequestURI().getPath();
            requests.add(exchange.getRequestMethod() + " " + path + " token=" + token);
            byte[] response;
            try (InputStream in = exchange.getRequestBody()) {
                String form = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                String body = form.startsWith("body=") ? URLDecoder.decode(form.substring(5), StandardCharsets.UTF_8) : null;
                switch (exchange.getRequestMethod()) {
                    case "GET" -> {
                        List<Map<String, Object>> list = new ArrayList<>();
                        notes.forEach((id, text) -> list.add(Map.of("id", id, "body", text)));
                        list.add(0, Map.of("id", 1, "body", "LGTM, a reviewer's note"));
                        response = new ObjectMapper().writeValueAsBytes(list);
                    }
                    case "POST" -> {
                        notes.put(100 + notes.size(), body);
                        response = "{}".getBytes(StandardCharsets.UTF_8);
                    }
                    case "PUT" -> {
                        notes.put(Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)), body);
                        response = "{}".getBytes(StandardCharsets.UTF_8);
                    }
                    default -> response = new byte[0];
                }
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, response.length);
            exchange.getResponseBody().write(response);
            exchange.close();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @Test
    void gitlabPostsOneNoteThenUpdatesItAndGatesOnTheExitCode() throws Exception {
        tool("jq");
        tool("curl");
        try (NotesApi api = new NotesApi()) {
            Path workDir = Files.createDirectories(tmp.resolve("gitlab-work"));
            Files.copy(JAR, workDir.resolve("nightshift.jar"));
            Map<String, String> env = new HashMap<>(Map.of("WORK_DIR", workDir.toString(), "CI_API_V4_URL", api.url(),
                    "CI_PROJECT_ID", "7", "CI_MERGE_REQUEST_IID", "3", "NIGHTSHIFT_NOTES_TOKEN", "glpat-test",
                    "CI_MERGE_REQUEST_DIFF_BASE_SHA", base, "CI_COMMIT_SHA", bump));

            Run first = exec(List.of("bash", "-eo", "pipefail", "-c", gitlabScript()), env, origin);

            assertThat(first.exitCode()).as(first.output()).isZero();
            assertThat(api.notes).hasSize(1);
            assertThat(api.notes.get(100)).isEqualTo(Files.readString(workDir.resolve("diff.md")))
                    .contains("**web** · ROLL · 2–3 nodes replaced (the spec's minimum–maximum)")
                    // Without a cluster the ETA takes the spec's maximum and the default durations, and says so.
                    .contains("- web: 3 nodes replaced, ~")
                    .contains("node count from the spec: its maximum (give --kubeconfig to count the nodes outdated in the cluster)")
                    .contains("default durations: the pools' observed durations are read only with --kubeconfig");

            env.put("CI_COMMIT_SHA", typo);
            Run second = exec(List.of("bash", "-eo", "pipefail", "-c", gitlabScript()), env, origin);

            assertThat(second.exitCode()).as(second.output()).isEqualTo(2);
            assertThat(api.notes).as("the same note, updated").containsOnlyKeys(100);
            assertThat(api.notes.get(100)).contains("`pools/web.yaml:6:12` `spec.maximum`");
            assertThat(api.requests).containsExactly(
                    "GET /api/v4/projects/7/merge_requests/3/notes token=glpat-test",
                    "POST /api/v4/projects/7/merge_requests/3/notes token=glpat-test",
                    "GET /api/v4/projects/7/merge_requests/3/notes token=glpat-test",
                    "PUT /api/v4/projects/7/merge_requests/3/notes/100 token=glpat-test");
        }
    }

    @Test
    void gitlabScriptIsCleanUnderShellcheckAsPosixSh() throws Exception {
        Path script = Files.writeString(tmp.resolve("gitlab.sh"), gitlabScript());

        Run run = exec(List.of(tool("shellcheck").toString(), "-s", "sh", script.toString()), Map.of(), tmp);

        assertThat(run.output()).as("shellcheck's findings").isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static String gitlabScript() throws IOException {
        Map<String, Object> pipeline = new Yaml().load(Files.readString(GITLAB));
        List<String> script = (List<String>) ((Map<String, Object>) pipeline.get("nightshift-diff")).get("script");
        return String.join("\n", script);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private record Run(int exitCode, String output) {
    }

    private static Path tool(String name) {
        Optional<Path> found = Optional.ofNullable(System.getenv("PATH")).stream()
                .flatMap(path -> List.of(path.split(File.pathSeparator)).stream())
                .map(dir -> Path.of(dir, name)).filter(Files::isExecutable).findFirst();
        if (found.isEmpty()) {
            fail("%s is not on the PATH: install Debian's %s (apt-get install -y %s); ./verify installs it", name, name, name);
        }
        return found.get();
    }

    /** Runs with the test's JDK first on the PATH, as setup-java and the Temurin image give. */
    private Run exec(List<String> command, Map<String, String> env, Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile(tmp, "out", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().putAll(env);
        builder.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + File.pathSeparator + System.getenv("PATH"));
        Process p = builder.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("finished: " + command).isTrue();
        return new Run(p.exitValue(), Files.readString(out));
    }

    private static void write(Path repo, String file, String content) throws IOException {
        Path p = repo.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content, StandardCharsets.UTF_8);
    }

    private static String commit(Path repo, String message) throws Exception {
        git(repo, "add", "-A");
        git(repo, "-c", "user.email=test@nightshift.dev", "-c", "user.name=test", "commit", "-q", "-m", message);
        return git(repo, "rev-parse", "HEAD").strip();
    }

    private static String git(Path cwd, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
        return stdout;
    }
}
