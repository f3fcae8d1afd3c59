package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.spec.load.SpecError;
import dev.nightshift.spec.load.SpecLoader;

/** The poller against a real git daemon, pushed to by the real git binary. */
class SpecPollerIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String pool(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: prod}
                spec:
                  minimum: 1
                  maximum: 3
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(version);
    }

    @TempDir
    Path tmp;

    private GitDaemon daemon;
    private GitWork work;
    private final RecordingListener listener = new RecordingListener();

    @BeforeEach
    void start() throws Exception {
        Path base = Files.createDirectories(tmp.resolve("served"));
        daemon = new GitDaemon(base);
        work = GitWork.create(base, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    private SpecPoller poller(String url, String ref, String path) throws IOException {
        GitSource source = new GitSource(new GitSourceConfig(URI.create(url), ref, path, new GitCredentials.None(),
                tmp.resolve("cache-" + ref.hashCode())));
        return new SpecPoller(source, new SpecLoader(), Optional.of("prod"), listener, Clock.systemUTC());
    }

    private String version(SpecRevision r) {
        return r.specs().pools().get(0).machine().image().version().text();
    }

    @Test
    void eachPushIsHandedOnWithTheSpecsOfExactlyThatCommit() throws Exception {
        work.write("specs/cluster.yaml", CLUSTER);
        work.write("specs/pools/web.yaml", pool("1631.0.0"));
        String first = work.commitAndPush("first");
        SpecPoller poller = poller(daemon.url("specs.git"), "main", "specs");

        assertThat(poller.poll()).isEqualTo(PollResult.NEW_SPEC);
        work.write("specs/pools/web.yaml", pool("1632.0.0"));
        String second = work.commitAndPush("second");
        assertThat(poller.poll()).isEqualTo(PollResult.NEW_SPEC);

        assertThat(listener.specs).extracting(SpecRevision::commit).containsExactly(first, second);
        assertThat(listener.specs).extracting(this::version).containsExactly("1631.0.0", "1632.0.0");
    }

    @Test
    void anUnchangedHeadFetchesNothing() throws Exception {
        work.write("cluster.yaml", CLUSTER + "---\n" + pool("1631.0.0"));
        work.commitAndPush("first");
        SpecPoller poller = poller(daemon.url("specs.git"), "main", "");
        poller.poll();
        long wantsAfterFirstFetch = daemon.wants();

        assertThat(poller.poll()).isEqualTo(PollResult.UNCHANGED);
        assertThat(poller.poll()).isEqualTo(PollResult.UNCHANGED);

        assertThat(wantsAfterFirstFetch).as("the first poll fetched").isPositive();
        assertThat(daemon.wants()).as("objects the server was asked for").isEqualTo(wantsAfterFirstFetch);
        assertThat(listener.specs).hasSize(1);
    }

    @Test
    void aForcePushToAnOlderCommitIsFollowed() throws Exception {
        work.write("cluster.yaml", CLUSTER + "---\n" + pool("1631.0.0"));
        String old = work.commitAndPush("old");
        work.write("cluster.yaml", CLUSTER + "---\n" + pool("1632.0.0"));
        work.commitAndPush("new");
        SpecPoller poller = poller(daemon.url("specs.git"), "main", "");
        poller.poll();

        work.forcePush(old);
        assertThat(poller.poll()).isEqualTo(PollResult.NEW_SPEC);

        assertThat(listener.specs).extracting(this::version).containsExactly("1632.0.0", "1631.0.0");
        assertThat(listener.specs.get(1).commit()).isEqualTo(old);
    }

    @Test
    void aBrokenCommitIsReportedWithItsPlaceAndNeverHandedOn() throws Exception {
        work.write("cluster.yaml", CLUSTER);
        work.write("pools/web.yaml", pool("1631.0.0"));
        String good = work.commitAndPush("good");
        SpecPoller poller = poller(daemon.url("specs.git"), "main", "");
        poller.poll();

        work.write("pools/web.yaml", pool("1632.0.0").replace("maximum: 3", "maximum: [3"));
        String badYaml = work.commitAndPush("bad yaml");
        assertThat(poller.poll()).isEqualTo(PollResult.INVALID_SPEC);
        work.write("pools/web.yaml", pool("1632.0.0").replace("maximum: 3", "maximum: lots"));
        String badField = work.commitAndPush("bad field");
        assertThat(poller.poll()).isEqualTo(PollResult.INVALID_SPEC);

        assertThat(listener.invalidCommits).containsExactly(badYaml, badField);
        // The unclosed "[" on line 6 runs on into line 7: SnakeYAML notices at the ":" after "machine".
        assertThat(listener.invalid.get(0)).singleElement().satisfies(e -> {
            assertThat(e).extracting(SpecError::file, SpecError::line, SpecError::column).containsExactly("pools/web.yaml", 7, 10);
            assertThat(e.message()).startsWith("invalid YAML: while parsing a flow sequence: expected ',' or ']'");
        });
        assertThat(listener.invalid.get(1)).singleElement().satisfies(e -> {
            assertThat(e.toString()).isEqualTo("pools/web.yaml:6:12: spec.maximum: must be a decimal integer, got \"lots\"");
        });
        assertThat(listener.specs).extracting(SpecRevision::commit).containsExactly(good);
        assertThat(poller.lastGood()).map(SpecRevision::commit).contains(good);
        assertThat(poller.currentErrors()).hasSize(1);
    }

    @Test
    void theNextGoodCommitAfterABrokenOneIsHandedOn() throws Exception {
        work.write("all.yaml", CLUSTER + "---\n" + pool("1631.0.0"));
        work.commitAndPush("good");
        SpecPoller poller = poller(daemon.url("specs.git"), "main", "");
        poller.poll();
        work.write("all.yaml", "kind: [\n");
        work.commitAndPush("broken");
        poller.poll();

        work.write("all.yaml", CLUSTER + "---\n" + pool("1633.0.0"));
        String fixed = work.commitAndPush("fixed");

        assertThat(poller.poll()).isEqualTo(PollResult.NEW_SPEC);
        assertThat(listener.specs).extracting(SpecRevision::commit).last().isEqualTo(fixed);
        assertThat(poller.currentErrors()).isEmpty();
    }

    @Test
    void aFileUrlWorksAsWell() throws Exception {
        work.write("all.yaml", CLUSTER + "---\n" + pool("1631.0.0"));
        String commit = work.commitAndPush("first");

        SpecPoller poller = poller(tmp.resolve("served/specs.git").toUri().toString(), "main", "");

        assertThat(poller.poll()).isEqualTo(PollResult.NEW_SPEC);
        assertThat(listener.specs.get(0).commit()).isEqualTo(commit);
    }

    @Test
    void aTagAndAPinnedCommitCanBeFollowed() throws Exception {
        work.write("all.yaml", CLUSTER + "---\n" + pool("1631.0.0"));
        String tagged = work.commitAndPush("tagged");
        work.tag("v1");
        work.write("all.yaml", CLUSTER + "---\n" + pool("1632.0.0"));
        String later = work.commitAndPush("later");

        poller(daemon.url("specs.git"), "v1", "").poll();
        poller(daemon.url("specs.git"), later, "").poll();

        assertThat(listener.specs).extracting(SpecRevision::commit).containsExactly(tagged, later);
    }

    @Test
    void anUnknownBranchIsAClearFailure() throws Exception {
        work.write("all.yaml", CLUSTER);
        work.commitAndPush("first");

        PollResult result = poller(daemon.url("specs.git"), "nope", "").poll();

        assertThat(result).isEqualTo(PollResult.FAILED);
        assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage()).contains("no branch or tag \"nope\""));
    }

    @Test
    void aMissingSpecDirectoryIsAClearFailure() throws Exception {
        work.write("all.yaml", CLUSTER);
        work.commitAndPush("first");

        poller(daemon.url("specs.git"), "main", "clusters/prod").poll();

        assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage()).contains("no directory \"clusters/prod\""));
    }

    @Test
    void aRepositoryThatNeverAnswersFailsThePollAfterTheTimeout() throws Exception {
        try (SilentGitServer silent = new SilentGitServer()) {
            // Over HTTP: JGit's git:// transport sets no socket timeout and relies on interrupting a
            // blocking read, which does not end it.
            GitSource source = new GitSource(new GitSourceConfig(URI.create(silent.httpUrl("specs.git")), "main", "",
                    new GitCredentials.None(), tmp.resolve("cache-silent"), Optional.empty(), Duration.ofSeconds(2)));
            SpecPoller poller = new SpecPoller(source, new SpecLoader(), Optional.of("prod"), listener, Clock.systemUTC());

            // Without a timeout the poll waits forever, and the next one is never scheduled.
            PollResult result = assertTimeoutPreemptively(Duration.ofSeconds(30), poller::poll, "the poll still waits");

            assertThat(result).isEqualTo(PollResult.FAILED);
            assertThat(listener.failures).singleElement().satisfies(e -> assertThat(e.getMessage())
                    .startsWith("cannot list " + silent.httpUrl("specs.git") + "@main: ").containsIgnoringCase("timed out"));
        }
    }
}
