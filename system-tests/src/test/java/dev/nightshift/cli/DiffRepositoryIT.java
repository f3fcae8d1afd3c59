package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import picocli.CommandLine;

/**
 * {@code nightshift diff --repo} on a repository built with the real {@code git} binary: a branch
 * that bumps one pool's image and the cluster's Kubernetes patch, reviewed as a pull request would
 * be, with node counts from the embedded cluster and from the spec.
 *
 * <p>The repository ({@code origin}, a normal one with HEAD on {@code main}):
 * <pre>
 *   main:    A (web 1631.0.0, batch, Kubernetes 1.31.4) ── C (adds pool "late", labels batch)
 *              \
 *   feature:    B (web 1632.0.0, Kubernetes 1.31.5)
 * </pre>
 */
class DiffRepositoryIT {

    /** Saturday 7 March 2026, 02:00 UTC: the hour's two-minute window opens. */
    private static final Instant SAT_0200 = Instant.parse("2026-03-07T02:00:00Z");

    @TempDir
    Path tmp;

    private Path origin;
    private String branchPoint;
    private String feature;
    private String mainHead;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 2m, timeZone: UTC}]
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
              minimum: 4
              maximum: 6
              maxSurge: 0
              maxUnavailable: 1
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    private static final String BATCH = """
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: batch, cluster: prod}
            spec:
              minimum: 2
              maximum: 5
              machine: {type: c5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    private static final String LATE = """
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: late, cluster: prod}
            spec:
              minimum: 1
              maximum: 1
              machine: {type: c5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    @BeforeEach
    void buildTheRepository() throws Exception {
        origin = tmp.resolve("origin");
        Files.createDirectories(origin);
        git(origin, "init", "-q", "-b", "main");
        write(origin, "specs/cluster.yaml", CLUSTER);
        write(origin, "specs/pools/web.yaml", WEB);
        write(origin, "specs/pools/batch.yaml", BATCH);
        write(origin, "README.md", "not a spec\n");
        branchPoint = commit(origin, "A: two pools");

        git(origin, "checkout", "-q", "-b", "feature");
        write(origin, "specs/pools/web.yaml", WEB.replace("version: 1631.0.0}", "version: 1632.0.0}"));
        write(origin, "specs/cluster.yaml", CLUSTER.replace("\"1.31.4\"", "\"1.31.5\""));
        feature = commit(origin, "B: web to 1632.0.0, Kubernetes 1.31.5");

        git(origin, "checkout", "-q", "main");
        write(origin, "specs/pools/late.yaml", LATE);
        write(origin, "specs/pools/batch.yaml", BATCH.replace("  minimum: 2\n", "  labels: {tier: batch}\n  minimum: 2\n"));
        mainHead = commit(origin, "C: a pool and a label on main after the branch point");
    }

    // ---- the pull request's review -----------------------------------------------------------

    /**
     * The acceptance case: web, 4 nodes with {@code maxSurge: 0, maxUnavailable: 1}, machines
     * Ready 60 s after creation and drains of 30 s (as its status record says), in the cluster's
     * 2-minute window every hour; batch rolls first (same role, by name), its 3 outdated kubelets
     * restarted in 10 s each. Node counts from the embedded cluster; "now" is Saturday 02:00 UTC.
     */
    @Test
    void markdownAndJsonCountTheNodesTheChangeMakesOutdatedInTheClusterAndGiveTheHandComputedEta() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            DesiredPool web = poolAt(branchPoint, "web");
            DesiredPool batch = poolAt(branchPoint, "batch");
            for (int i = 1; i <= 4; i++) {
                node(kube, "web-" + i, "web", web.rollHash(), web.kubeletHash());
            }
            for (int i = 1; i <= 3; i++) {
                node(kube, "batch-" + i, "batch", batch.rollHash(), batch.kubeletHash());
            }
            // Unstamped: the agent adopts it (stamps it) rather than restarting anything on it.
            node(kube, "batch-unstamped", "batch", null, null);
            // What the agent observed in each pool, in the pool's status record.
            durations(kube, "web", Map.of("createSeconds", "60", "drainSeconds", "30"));
            durations(kube, "batch", Map.of("kubeletRestartSeconds", "10"));
            String kubeconfig = kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString();
            kube.clearRequests();

            int code = diffAt(SAT_0200, "--repo", origin.toString(), "--to", "feature", "--path", "specs",
                    "--kubeconfig", kubeconfig, "--output", "json");

            assertThat(code).as(err.toString()).isZero();
            JsonNode json = new ObjectMapper().readTree(out.toString());
            assertThat(json.get("errors")).isEmpty();
            assertThat(json.get("pools")).extracting(p -> p.get("pool").asText() + "=" + p.get("action").asText())
                    .containsExactly("batch=KUBELET_RESTART", "web=ROLL");
            JsonNode webJson = pool(json, "web");
            assertThat(webJson.get("reasons")).extracting(r -> r.get("path").asText() + ":" + r.get("old").asText() + "->" + r.get("new").asText())
                    .containsExactly("spec.machine.image.version:1631.0.0->1632.0.0", "spec.kubernetes.version:1.31.4->1.31.5");
            assertThat(webJson.get("impact").toString()).isEqualTo("{\"nodes\":4,\"kind\":\"replaced\",\"source\":\"cluster\",\"poolNodes\":4}");
            assertThat(pool(json, "batch").get("impact").toString())
                    .isEqualTo("{\"nodes\":3,\"kind\":\"kubelet_restarted\",\"source\":\"cluster\",\"poolNodes\":4}");
            // batch rolls first (both are node pools; by name). Its maxSurge defaults to 1, so maxUnavailable
            // to 0: at most max(1, 0) = 1 kubelet restart at a time, no drain, 10 s each:
            // 02:00:00–02:00:10, –02:00:20, –02:00:30. 30 s of work, done at 02:00:30, inside window 1.
            assertThat(pool(json, "batch").get("eta").toString()).isEqualTo(eta(30, "2026-03-07T02:00:30Z",
                    List.of("2026-03-07T02:00:00Z", "2026-03-07T02:02:00Z"),
                    "3 node(s), AutoRollingUpdate with maxSurge 1 and maxUnavailable 0", "kubelet restart 10s (median of 1 observed)",
                    "starts at 2026-03-07T02:00:00Z", "no faults: no blocked drain, failed machine or unhealthy node"));
            // web starts when batch finishes, at 02:00:30. maxSurge 0, maxUnavailable 1: one node at a time,
            // drained (30 s), deleted, its replacement Ready 60 s later; 90 s a node, 4 × 90 = 360 s of work.
            // Window 1 [02:00:00, 02:02:00): node 1 drains at 02:00:30, Ready at 02:02:00, as the window
            // closes: node 2 waits. Window 2 [03:00, 03:02): node 2 drains at 03:00:00 (Ready 03:01:30),
            // node 3 at 03:01:30, still inside (Ready 03:03:00, after the close). Window 3 [04:00, 04:02):
            // node 4 drains at 04:00:00 and is Ready at 04:01:30 = 02:00:30 + 7260 s.
            assertThat(webJson.get("eta").toString()).isEqualTo(eta(360, "2026-03-07T04:01:30Z",
                    List.of("2026-03-07T02:00:00Z", "2026-03-07T02:02:00Z", "2026-03-07T03:00:00Z", "2026-03-07T03:02:00Z",
                            "2026-03-07T04:00:00Z", "2026-03-07T04:02:00Z"),
                    "4 node(s), AutoRollingUpdate with maxSurge 0 and maxUnavailable 1", "machine creation 1m (median of 1 observed)",
                    "drain 30s (median of 1 observed)", "starts when batch finishes (pools roll one at a time, in role order)",
                    "no faults: no blocked drain, failed machine or unhealthy node"));
            assertThat(webJson.has("etaLeftOut")).isFalse();
            assertThat(kube.requests()).as("diff only reads the cluster").noneMatch(r -> r.isWrite());

            out.getBuffer().setLength(0);
            code = diffAt(SAT_0200, "--repo", origin.toString(), "--to", "feature", "--path", "specs",
                    "--kubeconfig", kubeconfig, "--output", "markdown");

            assertThat(code).as(err.toString()).isZero();
            assertThat(out.toString()).isEqualTo("""
                    <!-- nightshift-diff -->
                    ### Nightshift: 2 pools change

                    Compared `%s` (where it branched off `main`) → `%s`.

                    **batch** · KUBELET_RESTART · kubelet restarted on 3 nodes (of 4 in the cluster)
                    - `spec.kubernetes.version`: `1.31.4` → `1.31.5` (kubelet restart)

                    **web** · ROLL · 4 nodes replaced (of 4 in the cluster)
                    - `spec.machine.image.version`: `1631.0.0` → `1632.0.0` (replace)
                    - `spec.kubernetes.version`: `1.31.4` → `1.31.5` (kubelet restart)

                    **ETA** (pools roll one at a time, in role order):
                    - batch: 3 nodes kubelet restarted, ~30s of work, in 1 window: Sat 02:00–02:02 (UTC); done by 2026-03-07T02:00:30Z
                    - web: 4 nodes replaced, ~6m of work, in 3 windows: Sat 02:00–02:02, Sat 03:00–03:02, Sat 04:00–04:02 (UTC); \
                    done by 2026-03-07T04:01:30Z

                    <details><summary>What the estimate assumes</summary>

                    - every pool: no faults: no blocked drain, failed machine or unhealthy node
                    - batch: 3 node(s), AutoRollingUpdate with maxSurge 1 and maxUnavailable 0; kubelet restart 10s (median of 1 observed); \
                    starts at 2026-03-07T02:00:00Z
                    - web: 4 node(s), AutoRollingUpdate with maxSurge 0 and maxUnavailable 1; machine creation 1m (median of 1 observed); \
                    drain 30s (median of 1 observed); starts when batch finishes (pools roll one at a time, in role order)

                    </details>
                    """.formatted(branchPoint.substring(0, 12), feature.substring(0, 12)));
        }
    }

    /**
     * web alone (batch's nodes already run the new spec): the same hand-computed case as
     * {@code RolloutEtaTest}, from a start at 02:00 as a window opens.
     */
    @Test
    void aPoolAloneStartsNowAndFinishesInTheSecondWindow() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            DesiredPool web = poolAt(branchPoint, "web");
            DesiredPool batch = poolAt(feature, "batch");
            for (int i = 1; i <= 4; i++) {
                node(kube, "web-" + i, "web", web.rollHash(), web.kubeletHash());
            }
            node(kube, "batch-1", "batch", batch.rollHash(), batch.kubeletHash());
            durations(kube, "web", Map.of("createSeconds", "60", "drainSeconds", "30"));
            String kubeconfig = kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString();

            int code = diffAt(SAT_0200, "--repo", origin.toString(), "--to", "feature", "--path", "specs",
                    "--kubeconfig", kubeconfig, "--output", "json");

            assertThat(code).as(err.toString()).isZero();
            JsonNode json = new ObjectMapper().readTree(out.toString());
            assertThat(pool(json, "batch").get("impact").get("nodes").asInt()).isZero();
            assertThat(pool(json, "batch").get("eta").isNull()).as("no node to restart: no estimate").isTrue();
            assertThat(pool(json, "batch").has("etaLeftOut")).isFalse();
            // 90 s a node (drain 30 s, replacement Ready 60 s later), one at a time: 360 s of work.
            // Window 1 [02:00, 02:02): node 1 drains at 02:00:00 (Ready 02:01:30), node 2 at 02:01:30, still
            // inside (Ready 02:03:00). Window 2 [03:00, 03:02): node 3 drains at 03:00:00 (Ready 03:01:30),
            // node 4 at 03:01:30, still inside, Ready at 03:03:00 = 02:00 + 3780 s.
            assertThat(pool(json, "web").get("eta").toString()).isEqualTo(eta(360, "2026-03-07T03:03:00Z",
                    List.of("2026-03-07T02:00:00Z", "2026-03-07T02:02:00Z", "2026-03-07T03:00:00Z", "2026-03-07T03:02:00Z"),
                    "4 node(s), AutoRollingUpdate with maxSurge 0 and maxUnavailable 1", "machine creation 1m (median of 1 observed)",
                    "drain 30s (median of 1 observed)", "starts at 2026-03-07T02:00:00Z",
                    "no faults: no blocked drain, failed machine or unhealthy node"));

            out.getBuffer().setLength(0);
            diffAt(SAT_0200, "--repo", origin.toString(), "--to", "feature", "--path", "specs", "--kubeconfig", kubeconfig,
                    "--output", "markdown");

            assertThat(out.toString()).contains("\n**ETA** (pools roll one at a time, in role order):\n"
                    + "- web: 4 nodes replaced, ~6m of work, in 2 windows: Sat 02:00–02:02, Sat 03:00–03:02 (UTC); "
                    + "done by 2026-03-07T03:03:00Z\n\n");
        }
    }

    @Test
    void aNodeAlreadyAtTheNewSpecIsNotCounted() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            DesiredPool before = poolAt(branchPoint, "web");
            DesiredPool after = poolAt(feature, "web");
            node(kube, "web-1", "web", before.rollHash(), before.kubeletHash());
            node(kube, "web-2", "web", before.rollHash(), before.kubeletHash());
            node(kube, "web-3", "web", after.rollHash(), after.kubeletHash());

            run("diff", "--repo", origin.toString(), "--to", feature, "--path", "specs",
                    "--kubeconfig", kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString(), "--output", "json");

            JsonNode impact = pool(new ObjectMapper().readTree(out.toString()), "web").get("impact");
            assertThat(impact.get("nodes").asInt()).isEqualTo(2);
            assertThat(impact.get("poolNodes").asInt()).isEqualTo(3);
        }
    }

    @Test
    void withoutAKubeconfigNodeCountsAreTheSpecsMinimumToMaximumAndSaySo() throws Exception {
        int code = run("diff", "--repo", origin.toString(), "--to", "feature", "--path", "specs", "--output", "json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.toString());
        assertThat(pool(json, "web").get("impact").toString())
                .isEqualTo("{\"nodes\":6,\"nodesMin\":4,\"kind\":\"replaced\",\"source\":\"spec\"}");
        assertThat(pool(json, "batch").get("impact").toString())
                .isEqualTo("{\"nodes\":5,\"nodesMin\":2,\"kind\":\"kubelet_restarted\",\"source\":\"spec\"}");
        // The ETA takes the maximum, 6 nodes, and the default durations (no record was read): one node at a
        // time, drained in 30 s and replaced in 120 s, 6 × 150 = 900 s of work; both said in the assumptions.
        JsonNode webEta = pool(json, "web").get("eta");
        assertThat(webEta.get("workSeconds").asInt()).isEqualTo(900);
        assertThat(webEta.get("assumptions")).extracting(JsonNode::asText).contains(
                "node count from the spec: its maximum (give --kubeconfig to count the nodes outdated in the cluster)",
                "default durations: the pools' observed durations are read only with --kubeconfig",
                "machine creation 2m (default: none observed in this pool yet)");

        out.getBuffer().setLength(0);
        run("diff", "--repo", origin.toString(), "--to", "feature", "--path", "specs", "--output", "markdown");

        assertThat(out.toString()).contains("**web** · ROLL · 4–6 nodes replaced (the spec's minimum–maximum)")
                .contains("Node counts are the pools' minimum–maximum from the spec");
    }

    // ---- which commits are compared ----------------------------------------------------------

    @Test
    void fromDefaultsToTheMergeBaseSoACommitOnMainAfterTheBranchPointIsNotInTheDiff() throws Exception {
        int code = run("diff", "--repo", origin.toString(), "--to", "feature", "--path", "specs", "--output", "json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.toString());
        assertThat(json.get("revisions").get("from").asText()).isEqualTo(branchPoint)
                .isEqualTo(git(origin, "merge-base", "main", "feature").strip());
        assertThat(json.get("revisions").get("to").asText()).isEqualTo(feature);
        assertThat(json.get("revisions").get("mergeBaseWith").asText()).isEqualTo("refs/heads/main");
        assertThat(json.get("pools")).extracting(p -> p.get("pool").asText()).doesNotContain("late");
        assertThat(json.findValuesAsText("path")).doesNotContain("spec.labels.tier");
    }

    @Test
    void anExplicitFromComparesWithThatCommitItself() throws Exception {
        int code = run("diff", "--repo", origin.toString(), "--from", "main", "--to", "feature", "--path", "specs", "--output", "json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.toString());
        assertThat(json.get("revisions").get("from").asText()).isEqualTo(mainHead);
        assertThat(json.get("revisions").get("mergeBaseWith").isNull()).isTrue();
        assertThat(pool(json, "late").get("action").asText()).as("main's newer pool, absent on the branch").isEqualTo("DELETE");
    }

    @Test
    void inACloneOnTheBranchTheDefaultBranchIsOriginHead() throws Exception {
        Path clone = tmp.resolve("clone");
        git(tmp, "clone", "-q", origin.toString(), clone.toString());
        git(clone, "checkout", "-q", "feature");

        int code = run("diff", "--repo", clone.toString(), "--to", "HEAD", "--path", "specs", "--output", "json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode revisions = new ObjectMapper().readTree(out.toString()).get("revisions");
        assertThat(revisions.get("mergeBaseWith").asText()).isEqualTo("refs/remotes/origin/main");
        assertThat(revisions.get("from").asText()).isEqualTo(branchPoint);
        assertThat(revisions.get("to").asText()).isEqualTo(feature);
    }

    @Test
    void aDetachedHeadWithoutOriginHeadAsksForFrom() throws Exception {
        git(origin, "checkout", "-q", "--detach", "feature");

        int code = run("diff", "--repo", origin.toString(), "--to", "HEAD", "--path", "specs");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("cannot tell the default branch").contains("give --from");
    }

    // ---- invalid input -----------------------------------------------------------------------

    @Test
    void aRevisionWithASpecErrorPrintsTheFileLineErrorAndExitsTwo() throws Exception {
        git(origin, "checkout", "-q", "-b", "broken", "feature");
        write(origin, "specs/pools/web.yaml", WEB.replace("maxSurge: 0", "maxSurge: abc"));
        commit(origin, "D: a typo");
        git(origin, "checkout", "-q", "main");

        int code = run("diff", "--repo", origin.toString(), "--to", "broken", "--path", "specs");

        assertThat(code).isEqualTo(2);
        assertThat(out.toString()).contains("new: pools/web.yaml:7:13: spec.maxSurge: must be an int >= 0 or a percentage");

        out.getBuffer().setLength(0);
        code = run("diff", "--repo", origin.toString(), "--to", "broken", "--path", "specs", "--output", "markdown");

        assertThat(code).isEqualTo(2);
        assertThat(out.toString()).contains("> [!CAUTION]")
                .contains("> - change `pools/web.yaml:7:13` `spec.maxSurge`: must be an int >= 0 or a percentage");
    }

    @Test
    void aRejectedChangeComesFirstInTheCommentAndExitsThree() throws Exception {
        git(origin, "checkout", "-q", "-b", "downgrade", "feature");
        write(origin, "specs/cluster.yaml", CLUSTER.replace("\"1.31.4\"", "\"1.30.9\""));
        commit(origin, "D: a downgrade");
        git(origin, "checkout", "-q", "main");

        int code = run("diff", "--repo", origin.toString(), "--to", "downgrade", "--path", "specs", "--output", "markdown");

        assertThat(code).isEqualTo(3);
        String comment = out.toString();
        assertThat(comment).contains("### Nightshift: 2 rejected, no pool changes");
        assertThat(comment.indexOf("> [!CAUTION]")).isPositive().isLessThan(comment.indexOf("**web**"));
        assertThat(comment).contains("> - **web**: `spec.kubernetes.version`: `1.31.4` → `1.30.9`: ");
    }

    @Test
    void anUnknownRevisionExitsTwoNamingIt() throws Exception {
        int code = run("diff", "--repo", origin.toString(), "--to", "no-such-branch", "--path", "specs");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("no revision \"no-such-branch\" in " + origin);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anUnknownFromExitsTwoNamingIt() throws Exception {
        int code = run("diff", "--repo", origin.toString(), "--from", "0123456789abcdef0123456789abcdef01234567", "--to", "feature");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("no revision \"0123456789abcdef0123456789abcdef01234567\"");
    }

    @Test
    void aCommitWithoutTheSpecDirectoryIsAnError() throws Exception {
        int code = run("diff", "--repo", origin.toString(), "--to", "feature", "--path", "nope", "--output", "json");

        assertThat(code).isEqualTo(2);
        JsonNode error = new ObjectMapper().readTree(out.toString()).get("errors").get(0);
        assertThat(error.get("message").asText()).isEqualTo("no directory \"nope\" in commit " + branchPoint);
    }

    @Test
    void notARepositoryExitsTwo() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));

        int code = run("diff", "--repo", empty.toString(), "--to", "main");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("not a Git repository");
    }

    @Test
    void aMissingPathInsideARepositoryIsNotTakenForTheRepository() throws Exception {
        int code = run("diff", "--repo", origin.resolve("absent").toString(), "--to", "feature");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("no such directory: " + origin.resolve("absent"));
    }

    @Test
    void oldNewAndRepoAreMutuallyExclusive() {
        int code = run("diff", "--repo", origin.toString(), "--to", "feature", "--old", "../examples/multi", "--new", "../examples/multi");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("mutually exclusive");
    }

    @Test
    void toWithoutRepoIsAUsageError() {
        int code = run("diff", "--old", "../examples/multi", "--new", "../examples/multi", "--to", "main");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("need --repo");
    }

    @Test
    void repoWithoutToIsAUsageError() {
        int code = run("diff", "--repo", origin.toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--to");
    }

    // ---- URLs --------------------------------------------------------------------------------

    @Test
    void aGitDaemonUrlIsClonedBareComparedAndRemoved() throws Exception {
        Path served = Files.createDirectories(tmp.resolve("served"));
        git(served, "clone", "-q", "--bare", origin.toString(), "specs.git");
        Set<Path> before = clones();
        try (GitDaemon daemon = new GitDaemon(served)) {
            int code = run("diff", "--repo", daemon.url("specs.git"), "--to", "feature", "--path", "specs", "--output", "json");

            assertThat(code).as(err.toString()).isZero();
            JsonNode json = new ObjectMapper().readTree(out.toString());
            assertThat(json.get("revisions").get("from").asText()).isEqualTo(branchPoint);
            assertThat(json.get("revisions").get("mergeBaseWith").asText()).as("the remote's HEAD").isEqualTo("refs/heads/main");
            assertThat(pool(json, "web").get("action").asText()).isEqualTo("ROLL");
        }
        assertThat(clones()).as("the temporary clone is removed").isEqualTo(before);
    }

    @Test
    void aFileUrlWorks() throws Exception {
        int code = run("diff", "--repo", origin.toUri().toString(), "--to", "feature", "--path", "specs", "--output", "json");

        assertThat(code).as(err.toString()).isZero();
        assertThat(pool(new ObjectMapper().readTree(out.toString()), "batch").get("action").asText()).isEqualTo("KUBELET_RESTART");
    }

    @Test
    void aUrlThatCannotBeClonedExitsTwo() {
        int code = run("diff", "--repo", tmp.resolve("absent").toUri().toString(), "--to", "main");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("cannot clone");
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** An {@code eta} object as JSON text: windows as open, close, open, close, …; then the assumptions. */
    private static String eta(int workSeconds, String completesAt, List<String> windows, String... assumptions) {
        ObjectMapper mapper = new ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode eta = mapper.createObjectNode().put("workSeconds", workSeconds)
                .put("completesAt", completesAt);
        com.fasterxml.jackson.databind.node.ArrayNode w = eta.putArray("windows");
        for (int i = 0; i < windows.size(); i += 2) {
            w.addObject().put("open", windows.get(i)).put("close", windows.get(i + 1));
        }
        com.fasterxml.jackson.databind.node.ArrayNode a = eta.putArray("assumptions");
        List.of(assumptions).forEach(a::add);
        return eta.toString();
    }

    /** The pool's status record as the agent keeps it, holding these observed durations. */
    private static void durations(EmbeddedKubernetes kube, String pool, Map<String, String> data) {
        kube.client().configMaps().resource(PoolStatusRecords.create(Agent.NAMESPACE, pool, data)).create();
    }

    private int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    /** {@code nightshift diff ARGS} with "now" at {@code now}, so that the ETA's instants are exact. */
    private int diffAt(Instant now, String... args) {
        CommandLine cli = new CommandLine(new DiffCommand(Clock.fixed(now, ZoneOffset.UTC)));
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private static JsonNode pool(JsonNode json, String name) {
        return StreamSupport.stream(json.get("pools").spliterator(), false).filter(p -> p.get("pool").asText().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no pool " + name + " in " + json));
    }

    /** The pool as the commit specifies it, with the hashes its nodes carry when they run it. */
    private DesiredPool poolAt(String commit, String name) throws Exception {
        Path export = Files.createDirectories(tmp.resolve("export-" + commit));
        for (String file : git(origin, "ls-tree", "-r", "--name-only", commit, "specs").lines().toList()) {
            write(export, file, git(origin, "show", commit + ":" + file));
        }
        return new SpecLoader().load(export.resolve("specs")).specs().resolvedPools("prod").stream().map(DesiredPool::of)
                .filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    private static void node(EmbeddedKubernetes kube, String name, String pool, StampedHash roll, StampedHash kubelet) {
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).addToLabels(NodeMarks.POOL, pool).endMetadata();
        if (roll != null) {
            node.editMetadata().addToAnnotations(NodeMarks.hashes(roll, kubelet)).endMetadata();
        }
        kube.client().nodes().resource(node.withNewStatus().addNewCondition().withType("Ready").withStatus("True")
                .withLastTransitionTime("2026-01-01T00:00:00Z").endCondition().endStatus().build()).create();
    }

    private static Set<Path> clones() throws IOException {
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return entries.filter(p -> p.getFileName().toString().startsWith("nightshift-diff-")).collect(Collectors.toSet());
        }
    }

    private static void write(Path repo, String file, String content) throws IOException {
        Path p = repo.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content, StandardCharsets.UTF_8);
    }

    private static String commit(Path repo, String message) throws Exception {
        git(repo, "add", "-A");
        git(repo, "-c", "user.email=test@nightshift.dev", "-c", "user.name=test", "-c", "commit.gpgsign=false",
                "commit", "-q", "-m", message);
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
