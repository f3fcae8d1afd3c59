package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.CommitVerification;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.git.Secret;
import dev.nightshift.agent.git.SigningKey;
import dev.nightshift.agent.http.WebhookVerifier;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * {@code git.verify} through a real agent: commits signed by the real {@code git} binary with keys
 * made by {@code ssh-keygen} and {@code gpg}, served by {@code git daemon}. A refused commit touches
 * nothing, judged from the embedded API server's request log; an applied one is what the pool record
 * says it accepted.
 */
class SignedCommitsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Pool web: its two nodes, and room for two more. */
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().with("minimum", "2").with("maximum", "4");
    /** The image the specs start at, and one that would replace every node. */
    private static final String IMAGE = "1631.0.0";
    private static final String NEWER = "1632.0.0";
    private static final String OLDER = "1630.0.0";

    /** A node or pod changed, a machine added or removed, a pod evicted: anything but the test's own touches. */
    private static final Predicate<RecordedRequest> TOUCHES = r -> r.isWrite()
            && (r.resourcePath().startsWith("/api/v1/nodes") || r.resourcePath().contains("/pods"))
            && !r.body().contains("example.com~1touched");

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private SigningKey allowed;

    @BeforeEach
    void startCluster() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
    }

    @AfterEach
    void stopGpgAgents() throws Exception {
        for (String name : new String[] {"allowed-gpg", "unknown-gpg"}) {
            if (Files.exists(tmp.resolve("keys").resolve(name + "-gnupg"))) {
                SigningKey.stopGpgAgent(tmp.resolve("keys"), name);
            }
        }
    }

    /** Cluster and pool in {@code all.yaml}, the pool at machine image {@code image}. */
    private static String specs(String image) {
        return ScenarioSpecs.oneFile(ScenarioSpecs.CLUSTER, WEB.withImage(image));
    }

    /** Verification by the allowed SSH key, which {@code allowed_signers} lists; {@code allowed} is the key. */
    private CommitVerification trustAllowedSshKey() throws Exception {
        allowed = SigningKey.ssh(tmp.resolve("keys"), "allowed");
        return CommitVerification.ssh(SigningKey.trust(tmp.resolve("allowed_signers"), allowed));
    }

    /** The agent started with SSH verification at a first commit signed by the allowed key; returns that commit. */
    private String startWithSsh() throws Exception {
        return start(trustAllowedSshKey());
    }

    /** The specs at {@link #IMAGE} pushed in a commit signed by the allowed key, then the agent started with {@code verification}. */
    private String start(CommitVerification verification) throws Exception {
        String first = pushSigned(IMAGE, "initial");
        startAgent(verification, "main");
        return first;
    }

    /** The specs at {@code image} committed with the allowed key's signature and pushed; returns the commit. */
    private String pushSigned(String image, String message) throws Exception {
        h.work.write("all.yaml", specs(image));
        return h.work.signedCommitAndPush(message, allowed);
    }

    /** How a test commits what it pushes: unsigned, signed by some key, with a forged signature. */
    @FunctionalInterface
    private interface Committing {
        /** Commits the working tree and pushes; returns the commit. */
        String commitAndPush(GitWork work) throws Exception;
    }

    /** The specs at {@link #NEWER} committed as {@code committing} does it and pushed; returns the commit. */
    private String pushNewer(Committing committing) throws Exception {
        h.work.write("all.yaml", specs(NEWER));
        return committing.commitAndPush(h.work);
    }

    /** {@link #pushNewer}, then the agent polls at once rather than at its next interval. */
    private String pushNewerAndPoll(Committing committing) throws Exception {
        String pushed = pushNewer(committing);
        h.agent.pollNow();
        return pushed;
    }

    private void startAgent(CommitVerification verification, String ref) throws Exception {
        h.startAgent("e2e", config -> {
            AgentConfig.Git g = config.git();
            return config.with(new AgentConfig.Git(g.url(), ref, g.path(), g.pollInterval(), g.timeout(), g.caFile(), g.auth(),
                    Optional.of(verification)));
        });
    }

    private void awaitApplied(String commit) {
        h.awaitAdopted("web", 2);
        await("the pool record accepts " + commit).atMost(Duration.ofSeconds(60)).until(() -> commit.equals(acceptedCommitInRecord()));
    }

    /** {@link #awaitApplied}, then the request log starts afresh: what it holds next is the next commit's doing. */
    private void awaitAppliedThenClearRequests(String commit) {
        awaitApplied(commit);
        h.kube.clearRequests();
    }

    private String acceptedCommitInRecord() {
        ConfigMap record = h.kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name("web")).get();
        return record == null ? null : PoolStatusRecords.accepted(record).map(PoolStatusRecords.Accepted::commit).orElse(null);
    }

    private JsonNode status() throws Exception {
        return JSON.readTree(h.agent.status());
    }

    /**
     * After {@code refused} was pushed: the agent refused it naming the commit and {@code reason}, counted an
     * unverified poll, and touched nothing while it reconciled twice more; {@code inForce} is still applied.
     */
    private void assertRefusedAndNothingTouched(String refused, String inForce, String reason) throws Exception {
        // The poll's counter is incremented when the poll returns, just after /status shows its outcome.
        await("the agent refuses " + refused).atMost(Duration.ofSeconds(30))
                .until(() -> refused.equals(status().path("commitVerification").path("commit").asText())
                        && new Scrape(h.http("/metrics")).valueOrZero("nightshift_git_polls_total", Map.of("result", "unverified")) > 0);
        JsonNode status = status();
        assertThat(status.path("commitVerification").path("verified").asBoolean()).isFalse();
        assertThat(status.path("commitVerification").path("reason").asText()).contains(reason);
        assertThat(status.path("lastError").asText()).startsWith("commit " + refused + " is not applied: ").contains(reason);
        assertThat(status.path("latestCommit").asText()).isEqualTo(refused);
        assertThat(status.path("revision").asText()).isEqualTo(inForce);
        Scrape metrics = new Scrape(h.http("/metrics"));
        assertThat(metrics.valueOrZero("nightshift_git_polls_total", Map.of("result", "unverified"))).isEqualTo(1.0);
        assertThat(metrics.value("nightshift_git_head_verified", Map.of())).hasValue(0.0);
        h.idleThroughReconciles("web-1", 2);
        assertThat(h.kube.requests()).as("requests after the refused commit").noneMatch(TOUCHES);
        assertThat(acceptedCommitInRecord()).isEqualTo(inForce);
        assertThat(h.nodes("web")).hasSize(2);
    }

    @Test
    void aCommitSignedByAnAllowedSshKeyIsApplied() throws Exception {
        String first = startWithSsh();
        awaitApplied(first);

        String bumped = pushNewerAndPoll(work -> work.signedCommitAndPush("newer image", allowed));

        awaitApplied(bumped);
        JsonNode verification = status().path("commitVerification");
        assertThat(verification.path("verified").asBoolean()).isTrue();
        assertThat(verification.path("mode").asText()).isEqualTo("ssh");
        assertThat(verification.path("signer").asText()).contains("signer@nightshift.dev").contains("SHA256:");
        assertThat(new Scrape(h.http("/metrics")).value("nightshift_git_head_verified", Map.of())).hasValue(1.0);
    }

    @Test
    void anUnsignedCommitIsRefusedAndTouchesNothing() throws Exception {
        String first = startWithSsh();
        awaitAppliedThenClearRequests(first);

        String unsigned = pushNewerAndPoll(work -> work.commitAndPush("newer image, unsigned"));

        assertRefusedAndNothingTouched(unsigned, first, "it is not signed");
    }

    @Test
    void aCommitSignedByAKeyNotAllowedIsRefusedAndTouchesNothing() throws Exception {
        String first = startWithSsh();
        awaitAppliedThenClearRequests(first);

        SigningKey stranger = SigningKey.ssh(tmp.resolve("keys"), "stranger");
        String unknown = pushNewerAndPoll(work -> work.signedCommitAndPush("newer image, signed by a stranger", stranger));

        assertRefusedAndNothingTouched(unknown, first, "which " + tmp.resolve("allowed_signers") + " does not allow");
    }

    @Test
    void aSignatureCopiedFromAnotherCommitIsRefusedAndTouchesNothing() throws Exception {
        String first = startWithSsh();
        awaitAppliedThenClearRequests(first);

        String forged = pushNewerAndPoll(work -> work.forgedCommitAndPush(first, "newer image, with the first commit's signature"));
        assertThat(h.work.git("cat-file", "commit", forged)).contains("-----BEGIN SSH SIGNATURE-----");

        assertRefusedAndNothingTouched(forged, first, "is bad");
    }

    /** Two commits signed by the allowed key, an old image and then the current one; the current one applied. */
    private record History(String old, String current) {
    }

    private History startAtTheSecondOfTwoSignedCommits(boolean allowRewind) throws Exception {
        CommitVerification verification = trustAllowedSshKey().allowRewind(allowRewind);
        String old = pushSigned(OLDER, "an old image");
        String current = pushSigned(IMAGE, "the current image");
        startAgent(verification, "main");
        awaitApplied(current);
        return new History(old, current);
    }

    @Test
    void aSignedRewindIsRefusedAndTouchesNothing() throws Exception {
        History history = startAtTheSecondOfTwoSignedCommits(false);
        h.kube.clearRequests();

        h.work.forcePush(history.old());
        h.agent.pollNow();

        assertRefusedAndNothingTouched(history.old(), history.current(), "it does not descend from commit " + history.current());
        assertThat(status().path("commitVerification").path("rewoundFrom").asText()).isEqualTo(history.current());
    }

    @Test
    void aSignedRewindIsAppliedAndReportedWithAllowRewind() throws Exception {
        History history = startAtTheSecondOfTwoSignedCommits(true);

        h.work.forcePush(history.old());
        h.agent.pollNow();

        await("the rewind applied").atMost(Duration.ofSeconds(60)).until(() -> history.old().equals(acceptedCommitInRecord()));
        JsonNode verified = status().path("commitVerification");
        assertThat(verified.path("verified").asBoolean()).isTrue();
        assertThat(verified.path("rewoundFrom").asText()).isEqualTo(history.current());
        assertThat(verified.path("notice").asText()).contains("does not descend from commit " + history.current())
                .contains("allowRewind");
    }

    @Test
    void withATagAsRefAnUnsignedCommitIsRefusedThoughTheTagIsSigned() throws Exception {
        CommitVerification verification = trustAllowedSshKey();
        String first = pushSigned(IMAGE, "initial");
        h.work.signedTagAndPush("release", allowed);
        startAgent(verification, "release");
        awaitAppliedThenClearRequests(first);

        String unsigned = pushNewerAndPoll(work -> {
            String commit = work.commitAndPush("newer image, unsigned");
            work.signedTagAndPush("release", allowed);
            // The tag's own signature is good (git says so, or this fails): only the commit's is missing.
            work.git("-c", "gpg.ssh.allowedSignersFile=" + tmp.resolve("allowed_signers"), "tag", "-v", "release");
            return commit;
        });

        assertRefusedAndNothingTouched(unsigned, first, "it is not signed");
    }

    @Test
    void aCommitSignedByAnAllowedGpgKeyIsAppliedAndOneByAnotherKeyIsRefused() throws Exception {
        allowed = SigningKey.gpg(tmp.resolve("keys"), "allowed-gpg");
        SigningKey other = SigningKey.gpg(tmp.resolve("keys"), "unknown-gpg");
        // The other key is in the file too, but its fingerprint is not listed.
        Path keys = SigningKey.trust(tmp.resolve("keys.asc"), allowed, other);
        String first = start(CommitVerification.gpg(keys, List.of(allowed.id())));
        awaitAppliedThenClearRequests(first);
        assertThat(status().path("commitVerification").path("signer").asText()).contains(allowed.id());

        String unknown = pushNewerAndPoll(work -> work.signedCommitAndPush("newer image, signed by a key not listed", other));

        assertRefusedAndNothingTouched(unknown, first, "signed by OpenPGP key " + other.id() + ", which git.verify.fingerprints does not list");
    }

    @Test
    void aGpgSignatureOverDifferentContentIsRefused() throws Exception {
        allowed = SigningKey.gpg(tmp.resolve("keys"), "allowed-gpg");
        String first = start(CommitVerification.gpg(SigningKey.trust(tmp.resolve("keys.asc"), allowed), List.of(allowed.id())));
        awaitAppliedThenClearRequests(first);

        String forged = pushNewerAndPoll(work -> work.forgedCommitAndPush(first, "newer image, with the first commit's signature"));

        assertRefusedAndNothingTouched(forged, first, "is bad: it does not match the commit's content");
    }

    @Test
    void theWebhookPollRefusesAnUnsignedCommitToo() throws Exception {
        CommitVerification verification = trustAllowedSshKey();
        String first = pushSigned(IMAGE, "initial");
        Path secret = Files.writeString(tmp.resolve("webhook-secret"), "hook-secret-5e1f");
        // Polls once an hour: only the hook makes the agent look again.
        h.startAgent("e2e", config -> {
            AgentConfig hourly = TestAgentConfig.of(config.git().url().orElseThrow(), "e2e", Duration.ofHours(1), config.cacheDir());
            return hourly.with(hourly.git().verified(verification)).with(AgentConfig.Webhook.secretFile(secret));
        });
        awaitAppliedThenClearRequests(first);

        String unsigned = pushNewer(work -> work.commitAndPush("newer image, unsigned"));
        byte[] payload = "{\"ref\":\"refs/heads/main\"}".getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> hook = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + h.agent.httpPort() + "/hooks/git"))
                .header(WebhookVerifier.GITHUB_SIGNATURE, new WebhookVerifier(Secret.fromFile(secret)).sign(payload))
                .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(hook.statusCode()).isEqualTo(202);

        assertRefusedAndNothingTouched(unsigned, first, "it is not signed");
    }
}
